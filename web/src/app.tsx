import { useEffect, useRef, useState } from 'preact/hooks';
import { api, fetchMe, setCsrfToken, setToken, setUnauthorizedHandler } from './api';
import { TenantPicker } from './components/tenant-picker';
import { ClusterPage } from './pages/cluster';
import { JobFormPage } from './pages/job-form';
import { JobPage } from './pages/job';
import { JobsPage } from './pages/jobs';
import { KeysPage } from './pages/keys';
import { MembersPage } from './pages/members';
import { AuditPageView } from './pages/audit';
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
import { McpServersPage } from './pages/mcp-servers';
import { ChannelsPage } from './pages/channels';
import { navigate, usePath } from './router';
import {
  can,
  loadSession,
  saveSession,
  setCurrentSession,
  ssoSession,
  type Session,
  type SessionMe,
} from './session';

type Scope = SessionMe['scopes'][number];

// The tenant pages, each with the scope it needs: a role without it does not see the link.
const TENANT_NAV: { path: string; label: string; scope: Scope }[] = [
  { path: '/jobs', label: 'Jobs', scope: 'jobs:read' },
  { path: '/runs', label: 'Runs', scope: 'runs:read' },
  { path: '/webhooks', label: 'Webhooks', scope: 'integrations:read' },
  { path: '/channels', label: 'Channels', scope: 'integrations:read' },
  { path: '/mcp-servers', label: 'MCP', scope: 'integrations:read' },
  { path: '/usage', label: 'Usage', scope: 'usage:read' },
  { path: '/skills', label: 'Skills', scope: 'jobs:read' },
  { path: '/secrets', label: 'Secrets', scope: 'secrets:read' },
  { path: '/settings', label: 'Settings', scope: 'jobs:read' },
  { path: '/members', label: 'Members', scope: 'access:manage' },
  { path: '/keys', label: 'API keys', scope: 'access:manage' },
  { path: '/audit', label: 'Audit log', scope: 'audit:read' },
];

export function App() {
  const [session, setSession] = useState<Session | null>(() => {
    const saved = loadSession();
    setToken(saved?.token ?? null);
    return saved;
  });
  // Without a key in this tab, the session cookie of an SSO sign-in may stand for the user.
  const [checking, setChecking] = useState(() => session === null);
  const path = usePath();

  const adopt = (me: SessionMe) => {
    setCsrfToken(me.csrf_token);
    setSession(ssoSession(me));
  };
  useEffect(() => {
    if (!checking) return;
    void fetchMe().then((me) => {
      if (me) adopt(me);
      setChecking(false);
    });
  }, []);
  const signIn = (next: Session) => {
    saveSession(next);
    setToken(next.token);
    setCsrfToken(null);
    setSession(next);
    navigate(next.role === 'admin' ? '/tenants' : '/jobs', true);
  };
  const signOut = async (endSession = true) => {
    // An SSO session ends on the server too; the cookie alone would not be enough. The page says
    // "signed out" once the server has ended it, not while the request is still on its way.
    if (endSession && !session?.token) await api('POST', '/auth/logout').catch(() => undefined);
    saveSession(null);
    setToken(null);
    setCsrfToken(null);
    setSession(null);
    navigate('/sign-in', true);
  };
  useEffect(() => setUnauthorizedHandler(() => void signOut(false)), []);

  setCurrentSession(session);
  const home = homeOf(session);
  useEffect(() => {
    if (checking) return;
    if (!session && path !== '/sign-in') navigate('/sign-in', true);
    else if (session && (path === '/' || path === '/sign-in')) navigate(home, true);
    else if (session && !allowed(session, path)) navigate(home, true);
  }, [session, path, checking]);

  // Paths about to be redirected (above) render nothing meanwhile; any other unknown one is a 404.
  const redirected = path === '/' || path === '/sign-in' || !session || !allowed(session, path);
  const page = checking ? null : session?.me && session.role === 'tenant' && !session.me.role ? (
    <NoTenantPage />
  ) : session ? (
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
              TENANT_NAV.filter((item) => can(session, item.scope)).map((item) => (
                <a
                  key={item.path}
                  href={item.path}
                  aria-current={path.startsWith(item.path) ? 'page' : undefined}
                >
                  {item.label}
                </a>
              ))
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
                <a href="/audit" aria-current={path.startsWith('/audit') ? 'page' : undefined}>
                  Audit log
                </a>
              </>
            )}
          </nav>
        ) : null}
        {session ? (
          <div class="who">
            {session.me ? (
              <TenantPicker me={session.me} onChange={adopt} />
            ) : (
              <span class="muted">{session.role === 'admin' ? 'Operator' : 'Tenant'}</span>
            )}
            <button type="button" onClick={() => void signOut()}>
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

function homeOf(session: Session | null): string {
  if (session?.role === 'admin') return '/tenants';
  return TENANT_NAV.find((item) => can(session, item.scope))?.path ?? '/jobs';
}

function allowed(session: Session, path: string): boolean {
  const tenantPage = TENANT_NAV.find((item) => path.startsWith(item.path));
  // The operator has its own view of the keys and the audit log.
  const adminPaths = ['/tenants', '/keys', '/cluster', '/audit'].some((p) => path.startsWith(p));
  // A path neither role has stays, to be told it does not exist.
  if (!tenantPage && !adminPaths) return true;
  if (session.role === 'admin') return adminPaths;
  return tenantPage !== undefined && can(session, tenantPage.scope);
}

function NoTenantPage() {
  return (
    <section class="card narrow">
      <h1>No tenant yet</h1>
      <p>
        You are signed in, but no tenant has invited this account (or its email is not verified by
        your identity provider). Ask an admin of your tenant to invite your address.
      </p>
    </section>
  );
}

function route(session: Session, path: string) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'keys') return <KeysPage operator={session.role === 'admin'} />;
  if (parts[0] === 'audit') return <AuditPageView operator={session.role === 'admin'} />;
  if (session.role === 'tenant') {
    if (parts[0] === 'runs' && parts.length === 1) return <RunsPage />;
    if (parts[0] === 'webhooks') return <WebhooksPage />;
    if (parts[0] === 'mcp-servers') return <McpServersPage />;
    if (parts[0] === 'channels') return <ChannelsPage />;
    if (parts[0] === 'usage') return <UsagePage />;
    if (parts[0] === 'skills') {
      if (parts.length === 1) return <SkillsPage />;
      return parts[1] === 'new' ? <SkillEditorPage /> : <SkillEditorPage name={parts[1]!} />;
    }
    if (parts[0] === 'secrets') return <SecretsPage />;
    if (parts[0] === 'settings') return <SettingsPage />;
    if (parts[0] === 'members') return <MembersPage me={session.me} />;
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
  if (path.startsWith('/mcp-servers')) return 'MCP servers';
  if (path.startsWith('/channels')) return 'Channels';
  if (path.startsWith('/usage')) return 'Usage';
  if (path.startsWith('/skills')) return 'Skills';
  if (path.startsWith('/secrets')) return 'Secrets';
  if (path.startsWith('/settings')) return 'Settings';
  if (path.startsWith('/tenants')) return 'Tenants';
  if (path.startsWith('/keys')) return 'API keys';
  if (path.startsWith('/cluster')) return 'Cluster';
  if (path.startsWith('/members')) return 'Members';
  if (path.startsWith('/audit')) return 'Audit log';
  return path === '/' || path === '/sign-in' ? 'Sign in' : 'Page not found';
}
