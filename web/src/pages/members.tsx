import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type Invitation, type Member } from '../api';
import { Alert, ConfirmButton, Field } from '../components/ui';
import { browserZone, formatInZone } from '../format';
import type { SessionMe } from '../session';

type Role = Member['role'];
const ROLES: Role[] = ['viewer', 'member', 'admin', 'owner'];
const ROLE_HINTS: Record<Role, string> = {
  viewer: 'reads',
  member: 'also edits and runs jobs, chats',
  admin: 'also secrets, integrations, keys and members',
  owner: 'also budgets',
};

/**
 * Admins: the tenant's members and open invitations. Only an owner grants or changes the owner
 * role (the API refuses it to anyone else, and this page does not offer it).
 */
export function MembersPage({ me }: { me?: SessionMe | undefined }) {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [invitations, setInvitations] = useState<Invitation[]>([]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // A key session holds every scope; an SSO session grants owner only to an owner.
  const isOwner = !me || me.role === 'owner';
  const grantable = ROLES.filter((r) => r !== 'owner' || isOwner);

  const load = async () => {
    try {
      const [m, i] = await Promise.all([
        api<{ data: Member[] }>('GET', '/v1/members'),
        api<{ data: Invitation[] }>('GET', '/v1/invitations'),
      ]);
      setMembers(m.data);
      setInvitations(i.data);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), []);

  const act = async (fn: () => Promise<unknown>, message?: string) => {
    try {
      await fn();
      if (message) setDone(message);
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const invite = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    setDone(null);
    try {
      await api('POST', '/v1/invitations', { email: email.trim(), role });
      setDone(`Invited ${email.trim()} as ${role}.`);
      setEmail('');
      await load();
    } catch (err) {
      setFormError(messageOf(err));
    }
  };

  return (
    <section>
      <h1>Members</h1>
      <p class="muted">
        People sign in with your identity provider. An invitation lets the person with that verified
        email join at their next sign-in. Removing a member ends their sessions at once.
      </p>
      <Alert message={error} />
      <form class="card narrow" onSubmit={(e) => void invite(e)} noValidate>
        <h2>Invite</h2>
        <Alert message={formError} />
        {done ? <p role="status">{done}</p> : null}
        <div class="row-2">
          <Field id="invite-email" label="Email">
            <input
              id="invite-email"
              type="email"
              value={email}
              autocomplete="off"
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </Field>
          <Field id="invite-role" label="Role" hint={ROLE_HINTS[role]}>
            <select
              id="invite-role"
              value={role}
              onChange={(e) => setRole(e.currentTarget.value as Role)}
            >
              {grantable.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <button type="submit" class="primary">
          Invite
        </button>
      </form>
      <div class="table-wrap">
        <table class="stack">
          <caption>Members</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(members ?? []).map((member) => {
              // An owner is an owner's business, and the last one stays (the API says so too).
              const owners = (members ?? []).filter((m) => m.role === 'owner').length;
              const locked = member.role === 'owner' && (!isOwner || owners === 1);
              return (
                <tr key={member.user_id}>
                  <td data-label="Email">{member.email ?? '—'}</td>
                  <td data-label="Name">{member.name ?? '—'}</td>
                  <td data-label="Role">
                    <select
                      aria-label={`Role of ${member.email ?? member.user_id}`}
                      value={member.role}
                      disabled={locked}
                      onChange={(e) =>
                        void act(() =>
                          api('PATCH', `/v1/members/${member.user_id}`, {
                            role: e.currentTarget.value,
                          }),
                        )
                      }
                    >
                      {(locked ? ROLES : grantable).map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td data-label="Since">{formatInZone(member.created_at, browserZone)}</td>
                  <td>
                    <ConfirmButton
                      label="Remove"
                      danger
                      disabled={locked}
                      question={`Remove ${member.email ?? member.user_id}? Their sessions end now.`}
                      onConfirm={() =>
                        act(
                          () => api('DELETE', `/v1/members/${member.user_id}`),
                          `Removed ${member.email ?? member.user_id}.`,
                        )
                      }
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {invitations.length > 0 ? (
        <div class="table-wrap">
          <table class="stack">
            <caption>Open invitations</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((invitation) => (
                <tr key={invitation.id}>
                  <td data-label="Email">{invitation.email}</td>
                  <td data-label="Role">{invitation.role}</td>
                  <td data-label="Expires">{formatInZone(invitation.expires_at, browserZone)}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() =>
                        void act(() => api('DELETE', `/v1/invitations/${invitation.id}`))
                      }
                    >
                      Withdraw
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
