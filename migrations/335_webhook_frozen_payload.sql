-- A run event's body is frozen when its delivery is queued (it was rendered from the run row at
-- each attempt, so one webhook-id could carry different bodies: a run retried by hand before its
-- run.failed went out was sent as run.failed with status success). The event's data goes in
-- webhook_deliveries.payload, the column job.paused already keeps its data in; the trigger
-- function (migrations/functions/webhook_deliveries_freeze_payload.sql, in place before this
-- migration runs) fills it from the run in the transaction that queues the delivery, so a
-- delivery queued while the previous enqueue body is still in force is frozen too.

-- A run's data holds up to 4,096 characters of result and 1,024 of error, escaped.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_payload_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_payload_check
  CHECK (octet_length(payload::text) <= 65536);

CREATE TRIGGER webhook_deliveries_freeze_payload
  BEFORE INSERT OR UPDATE ON webhook_deliveries
  FOR EACH ROW
  WHEN (NEW.run_id IS NOT NULL AND NEW.payload IS NULL)
  EXECUTE FUNCTION webhook_deliveries_freeze_payload();

-- The deliveries still to be sent are frozen now, from their run as it is: the trigger fills the
-- payload of each row this statement touches.
UPDATE webhook_deliveries SET payload = NULL
 WHERE status = 'pending' AND run_id IS NOT NULL AND payload IS NULL;
