import { useEffect, useRef, useState } from 'preact/hooks';
import { setToken, setUnauthorizedHandler } from './api';
import { ClusterPage } from './pages/cluster';
import { JobFormPage } from './pages/job-form';
import { JobPage } from './pages/job';
import { JobsPage } from './pages/jobs';
import { KeysPage } from './pages/keys';
import { NotFoundPage } from './pages/not-found';
import { SecretsPage } from './pages/secrets';
import { SettingsPage } from './pages/settings';
import { SkillEditorPage, SkillsPage } from './pages/skills';
import { RunPage } from './pages/run';
import { RunsPage } from './pages/runs';
import { SignInPage } from './pages/sign-in';
import { TenantPage, TenantsPage } from './pages/tenants';
import { UsagePage } from './pages/usage';
import { WebhooksPage } from './pages/webhooks';
import { navigate, usePath } from './router';
import { loadSession, saveSession, type Session } from './session';

export function App() {
  const [session, setSession] = useState<Session | null>(() => {
    const saved = loadSession();
    setToken(saved?.token ?? null);
    return saved;
  });
  const path = usePath();

  const signIn = (next: Session) => {
    saveSession(next);
    setToken(next.token);
    setSession(next);
    navigate(next.role === 'admin' ? '/tenants' : '/jobs', true);
  };
  const signOut = () => {
    saveSession(null);
    setToken(null);
    setSession(null);
    navigate('/sign-in', true);
  };
  useEffect(() => setUnauthorizedHandler(signOut), []);

  const home = session?.role === 'admin' ? '/tenants' : '/jobs';
  useEffect(() => {
    if (!session && path !== '/sign-in') navigate('/sign-in', true);
    else if (session && (path === '/' || path === '/sign-in')) navigate(home, true);
    else if (session && !allowed(session, path)) navigate(home, true);
  }, [session, path]);

  // Paths about to be redirected (above) render nothing meanwhile; any other unknown one is a 404.
  const redirected = path === '/' || path === '/sign-in' || !session || !allowed(session, path);
  const page = session ? (
    (route(session, path) ?? (redirected ? null : <NotFoundPage home={home} />))
  ) : (
    <SignInPage onSignIn={signIn} />
  );
  const firstPath = useRef(path);
  useEffect(() => {
    document.title = `${titleOf(path)} · HermesX`;
    // After a client-side navigation, keyboard and screen-reader users start at the new content.
    if (path !== firstPath.current) document.getElementById('main')?.focus({ preventScroll: true });
    firstPath.current = '';
  }, [path]);

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={session ? home : '/sign-in'}>
          <span class="logo" aria-hidden="true">
            H
          </span>
          HermesX
        </a>
        {session ? (
          <nav aria-label="Main">
            {session.role === 'tenant' ? (
              <>
                <a href="/jobs" aria-current={path.startsWith('/jobs') ? 'page' : undefined}>
                  Jobs
                </a>
                <a href="/runs" aria-current={path.startsWith('/runs') ? 'page' : undefined}>
                  Runs
                </a>
                <a
                  href="/webhooks"
                  aria-current={path.startsWith('/webhooks') ? 'page' : undefined}
                >
                  Webhooks
                </a>
                <a href="/usage" aria-current={path.startsWith('/usage') ? 'page' : undefined}>
                  Usage
                </a>
                <a href="/skills" aria-current={path.startsWith('/skills') ? 'page' : undefined}>
                  Skills
                </a>
                <a href="/secrets" aria-current={path.startsWith('/secrets') ? 'page' : undefined}>
                  Secrets
                </a>
                <a
                  href="/settings"
                  aria-current={path.startsWith('/settings') ? 'page' : undefined}
                >
                  Settings
                </a>
              </>
            ) : (
              <>
                <a href="/tenants" aria-current={path.startsWith('/tenants') ? 'page' : undefined}>
                  Tenants
                </a>
                <a href="/keys" aria-current={path.startsWith('/keys') ? 'page' : undefined}>
                  API keys
                </a>
                <a href="/cluster" aria-current={path.startsWith('/cluster') ? 'page' : undefined}>
                  Cluster
                </a>
              </>
            )}
          </nav>
        ) : null}
        {session ? (
          <div class="who">
            <span class="muted">{session.role === 'admin' ? 'Operator' : 'Tenant'}</span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}

function allowed(session: Session, path: string): boolean {
  const tenantPaths = [
    '/jobs',
    '/runs',
    '/webhooks',
    '/usage',
    '/skills',
    '/secrets',
    '/settings',
  ].some((p) => path.startsWith(p));
  const adminPaths = ['/tenants', '/keys', '/cluster'].some((p) => path.startsWith(p));
  // A path neither role has stays, to be told it does not exist.
  if (!tenantPaths && !adminPaths) return true;
  return session.role === 'tenant' ? tenantPaths : adminPaths;
}

function route(session: Session, path: string) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (session.role === 'tenant') {
    if (parts[0] === 'runs' && parts.length === 1) return <RunsPage />;
    if (parts[0] === 'webhooks') return <WebhooksPage />;
    if (parts[0] === 'usage') return <UsagePage />;
    if (parts[0] === 'skills') {
      if (parts.length === 1) return <SkillsPage />;
      return parts[1] === 'new' ? <SkillEditorPage /> : <SkillEditorPage name={parts[1]!} />;
    }
    if (parts[0] === 'secrets') return <SecretsPage />;
    if (parts[0] === 'settings') return <SettingsPage />;
    if (parts[0] !== 'jobs') return null;
    if (parts.length === 1) return <JobsPage />;
    if (parts[1] === 'new') return <JobFormPage />;
    if (parts.length === 3 && parts[2] === 'edit') return <JobFormPage jobId={parts[1]!} />;
    if (parts.length === 4 && parts[2] === 'runs') {
      return <RunPage jobId={parts[1]!} runId={parts[3]!} />;
    }
    return <JobPage jobId={parts[1]!} />;
  }
  if (parts[0] === 'tenants')
    return parts[1] ? <TenantPage tenantId={parts[1]} /> : <TenantsPage />;
  if (parts[0] === 'keys') return <KeysPage />;
  if (parts[0] === 'cluster') return <ClusterPage />;
  return null;
}

function titleOf(path: string): string {
  if (path === '/jobs/new') return 'New job';
  if (/^\/jobs\/[^/]+\/runs\//.test(path)) return 'Run';
  if (path.startsWith('/jobs/')) return 'Job';
  if (path.startsWith('/jobs')) return 'Jobs';
  if (path.startsWith('/runs')) return 'Runs';
  if (path.startsWith('/webhooks')) return 'Webhooks';
  if (path.startsWith('/usage')) return 'Usage';
  if (path.startsWith('/skills')) return 'Skills';
  if (path.startsWith('/secrets')) return 'Secrets';
  if (path.startsWith('/settings')) return 'Settings';
  if (path.startsWith('/tenants')) return 'Tenants';
  if (path.startsWith('/keys')) return 'API keys';
  if (path.startsWith('/cluster')) return 'Cluster';
  return path === '/' || path === '/sign-in' ? 'Sign in' : 'Page not found';
}
