import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { judgeAddress, type AddressPolicy } from './address-policy.js';
import { OutboundError } from './outbound-error.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has (the DNS boundary; tests pass their own). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const resolveWithSystem: Resolver = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({
    address: answer.address,
    family: answer.family === 6 ? 6 : 4,
  }));
};

/**
 * A `lookup` for the connection itself: the socket connects only to the addresses judged here,
 * so a name that resolves to a public address when validated and to 127.0.0.1 when connecting
 * (DNS rebinding) is still refused. One refused address refuses the whole name: a mixed answer
 * is a sign of rebinding, and happy-eyeballs could otherwise pick the private one.
 */
export function createGuardedLookup(policy: AddressPolicy, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        if (answers.length === 0) {
          callback(new OutboundError('dns', `${hostname} has no address`), '', 4);
          return;
        }
        for (const answer of answers) {
          const verdict = judgeAddress(answer.address, policy);
          if (!verdict.allowed) {
            callback(
              new OutboundError(
                'blocked_address',
                `refused ${hostname}: it resolves to ${verdict.reason}`,
              ),
              '',
              4,
            );
            return;
          }
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = answers.filter((answer) => wanted === 0 || answer.family === wanted);
        const first = usable[0];
        if (first === undefined) {
          callback(new OutboundError('dns', `${hostname} has no IPv${wanted} address`), '', 4);
          return;
        }
        if (options.all) {
          (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [
            ...usable,
          ]);
          return;
        }
        callback(null, first.address, first.family);
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        callback(new OutboundError('dns', `cannot resolve ${hostname}: ${message}`), '', 4);
      },
    );
  };
}
