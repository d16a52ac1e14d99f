import { api, messageOf } from '../api';
import type { SessionMe } from '../session';

/** The signed-in user, and the tenant its session acts for (a choice when it has several). */
export function TenantPicker({
  me,
  onChange,
}: {
  me: SessionMe;
  onChange: (me: SessionMe) => void;
}) {
  const choose = async (tenantId: string) => {
    try {
      onChange(await api<SessionMe>('POST', '/auth/tenant', { tenant_id: tenantId }));
      // Every page's data was the other tenant's: start again from the top.
      window.location.assign('/');
    } catch (err) {
      window.alert(messageOf(err));
    }
  };
  const who = me.user.email ?? me.user.name ?? 'Signed in';
  const label = me.role ? `${who} · ${me.role}` : who;
  if (me.tenants.length < 2) return <span class="muted">{label}</span>;
  return (
    <label class="muted">
      {label}{' '}
      <select
        aria-label="Tenant"
        value={me.tenant_id ?? ''}
        onChange={(e) => void choose(e.currentTarget.value)}
      >
        {me.tenants.map((tenant) => (
          <option key={tenant.id} value={tenant.id}>
            {tenant.name} ({tenant.role})
          </option>
        ))}
      </select>
    </label>
  );
}
