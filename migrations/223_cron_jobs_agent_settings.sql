-- A job's agent settings: skills whose text is preloaded into each run, and whether the previous
-- successful run's result is shown to the next one. Read by the runner at each run, so changing
-- them needs no notification (105's trigger ignores them).
ALTER TABLE cron_jobs
  ADD COLUMN skills text[] NOT NULL DEFAULT '{}' CHECK (cardinality(skills) <= 8),
  ADD COLUMN context_previous_result boolean NOT NULL DEFAULT false;
