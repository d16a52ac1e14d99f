// Which pod tries a job's lock first. Every pod computes the same answer from the same list of
// live peers (rendezvous hashing: the peer with the highest hash of (peer, job) owns the job), so
// at an occurrence each job is tried by one pod instead of all of them, and a peer joining or
// leaving moves only its share of the jobs. Pure; the lock and the claim still decide who runs.

/** The owner of `jobId` among `peers`; `self` counts as a peer even if not listed yet. */
export function ownerOf(jobId: string, peers: readonly string[], self: string): string {
  let owner = self;
  let best = scoreOf(self, jobId);
  for (const peer of peers) {
    if (peer === self) continue;
    const score = scoreOf(peer, jobId);
    if (score > best || (score === best && peer < owner)) {
      owner = peer;
      best = score;
    }
  }
  return owner;
}

/** FNV-1a over "peer|job", finished with murmur3's mixer so similar pod names spread well. */
function scoreOf(peer: string, jobId: string): number {
  let hash = 0x811c9dc5;
  hash = mix(hash, peer);
  hash = Math.imul(hash ^ 0x7c, 0x01000193);
  hash = mix(hash, jobId);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function mix(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}
