# Test targets of the user guide. `npm test` remains the one command that runs everything.
#
#   make test               unit tests (in-memory fakes for the scheduler core)
#   make test-integration   start the test middleware, run test/integration and test/e2e, stop it
#   make test-infra-up      PostgreSQL :5433 + Redis :6380 (+ MinIO :9002 with Docker)
#   make test-infra-down    stop them
#
# With a working Docker engine (`docker info` succeeds) the middleware is docker-compose.test.yml;
# without one, embedded PostgreSQL 16 and redis-server run as local background processes
# (PIDs in .cache/test-infra.pids). See scripts/test-infra.mjs. Needs `npm ci` first.
# Ports taken on this machine? With Docker, PG_HOST_PORT / REDIS_HOST_PORT / MINIO_HOST_PORT move
# them; pass TEST_DATABASE_URL / TEST_REDIS_URL to match (npm run verify:docker does so).

TEST_DATABASE_URL ?= postgres://postgres:postgres@127.0.0.1:5433/postgres
TEST_REDIS_URL ?= redis://127.0.0.1:6380
TEST_INFRA := node --import tsx scripts/test-infra.mjs

.PHONY: test test-integration test-infra-up test-infra-down

test:
	npx vitest run test/unit

# The middleware is stopped whatever the tests do, and the tests' exit status is kept.
test-integration:
	@status=0; \
	trap '$(TEST_INFRA) down' EXIT; \
	trap 'exit 130' INT TERM; \
	$(TEST_INFRA) up || exit $$?; \
	TEST_DATABASE_URL='$(TEST_DATABASE_URL)' TEST_REDIS_URL='$(TEST_REDIS_URL)' \
	  npx vitest run test/integration test/e2e || status=$$?; \
	exit $$status

test-infra-up:
	$(TEST_INFRA) up

test-infra-down:
	$(TEST_INFRA) down
