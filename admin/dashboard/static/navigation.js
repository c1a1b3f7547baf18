// Client-side navigation: same-origin links change the path without a reload.
import { useEffect, useState } from 'preact/hooks';

export function navigate(path) {
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return path;
}

export function onLinkClick(event) {
  const link = event.target.closest?.('a[href^="/"]');
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || link.target) return;
  event.preventDefault();
  navigate(link.getAttribute('href'));
}
