// The contract suite against the fake Redis of the unit tests.
import { describeLockStoreContract } from '../contract/lock-store.contract.js';
import { FakeClock } from '../kit/clock.js';
import { FakeRedis } from '../kit/redis.js';

describeLockStoreContract('in-memory fake', () => {
  const redis = new FakeRedis(new FakeClock(Date.parse('2030-01-01T00:00:00Z')));
  return { forPod: (podId) => redis.forPod(podId) };
});
