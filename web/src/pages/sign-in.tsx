import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, messageOf } from '../api';
import { Alert, Field, describedBy } from '../components/ui';
import type { Session } from '../session';

// What /auth/callback says when a sign-in through the provider did not complete.
const SSO_ERRORS: Record<string, string> = {
  login_expired: 'The sign-in took too long or was started elsewhere. Try again.',
  provider_refused: 'The identity provider did not sign you in.',
  login_failed: "The identity provider's answer could not be verified. Try again.",
};

/**
 * "Sign in with SSO" when the service has an identity provider (GET /auth/options), and the key
 * form in any case. One field for either credential: a tenant key (hk_… or HERMES_API_KEY) or the operators'
 * admin token. Which one it is, the API says: tenant routes refuse the admin token with 403.
 */
export function SignInPage({ onSignIn }: { onSignIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState(false);
  const ssoError = SSO_ERRORS[new URLSearchParams(location.search).get('error') ?? ''] ?? null;
  useEffect(() => {
    void api<{ sso: boolean }>('GET', '/auth/options', undefined, null)
      .then((options) => setSso(options.sso))
      .catch(() => setSso(false));
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = token.trim();
    if (!value) {
      setError('Enter an API key or the admin token.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onSignIn({ token: value, role: await roleOf(value) });
    } catch (err) {
      setError(
        err instanceof ApiFailure && err.status === 401
          ? 'This key is not valid (wrong, revoked or expired).'
          : messageOf(err),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="signin card">
      <h1>Sign in</h1>
      <Alert message={ssoError} />
      {sso ? (
        <>
          <a class="button primary sso" href="/auth/login">
            Sign in with SSO
          </a>
          <p class="muted">Or with an API key:</p>
        </>
      ) : null}
      <p class="muted">
        Tenants: your API key (<code>hk_…</code>). Operators: the admin token (
        <code>HERMES_ACP_TOKEN</code>). It is kept in this tab only.
      </p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="token" label="API key" error={error ?? undefined}>
          <input
            id="token"
            type="password"
            autocomplete="current-password"
            spellcheck={false}
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
            {...describedBy('token', error ?? undefined)}
          />
        </Field>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </section>
  );
}

async function roleOf(token: string): Promise<'tenant' | 'admin'> {
  try {
    await api('GET', '/v1/cron-jobs?limit=1', undefined, token);
    return 'tenant';
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 403) throw err;
  }
  await api('GET', '/v1/tenants', undefined, token);
  return 'admin';
}
