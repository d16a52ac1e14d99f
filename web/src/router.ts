import { useEffect, useState } from 'preact/hooks';

// History-API routing: the server answers index.html for the dashboard's paths (never /v1).

const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  if (path === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** Clicks on same-origin links change the route without a reload (modified clicks do not). */
export function interceptLinks(): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, location.href);
    // The API and sign-in (/auth/login leaves for the identity provider) are not routes.
    if (url.origin !== location.origin || /^\/(?:v1|auth)\//.test(url.pathname)) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}
