// The one-page app: the key form when the server wants an API key, else the page for the current path.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { apiKey, onUnauthorized, setApiKey } from './api.js';
import { ImpostersPage } from './imposters-page.js';
import { ImposterPage } from './imposter-page.js';
import { MetricsPage } from './metrics-page.js';
import { ConfigPage, LogsPage } from './system-pages.js';
import { onLinkClick, usePath } from './navigation.js';

/** `{keyRequired, authorized}` for the key the page holds; answered without a 401 (no console noise). */
async function access() {
  const key = apiKey();
  const response = await fetch('/_dashboard/api/access', { headers: key ? { Authorization: key } : {} });
  return response.json();
}

function KeyForm({ rejected, onKey }) {
  const [key, setKey] = useState('');
  const submit = (event) => {
    event.preventDefault();
    onKey(key);
  };
  useEffect(() => {
    document.title = 'API key · svc';
  }, []);
  return html`<main class="login" id="main">
    <h1>svc</h1>
    <form onSubmit=${submit} id="key-form">
      <label for="api-key">This server requires an API key</label>
      <input id="api-key" name="api-key" type="password" autocomplete="off" value=${key}
        onInput=${(e) => setKey(e.target.value)} autofocus />
      <button type="submit">Continue</button>
      ${rejected && html`<p class="error" role="alert">That key was refused (401).</p>`}
    </form>
  </main>`;
}

function Page({ path }) {
  const imposter = /^\/imposters\/(\d+)\/?$/.exec(path);
  if (imposter) return html`<${ImposterPage} port=${Number(imposter[1])} key=${imposter[1]} />`;
  if (/^\/config\/?$/.test(path)) return html`<${ConfigPage} />`;
  if (/^\/logs\/?$/.test(path)) return html`<${LogsPage} />`;
  if (/^\/metrics\/?$/.test(path)) return html`<${MetricsPage} />`;
  return html`<${ImpostersPage} />`;
}

function Nav({ path, keyed, onForget }) {
  const item = (href, label, active) => html`<a href=${href} class=${active ? 'active' : ''} aria-current=${active ? 'page' : undefined}>${label}</a>`;
  return html`<header class="top">
    <a href="/imposters" class="brand">svc</a>
    <nav aria-label="main">
      ${item('/imposters', 'Imposters', path === '/' || path.startsWith('/imposters'))}
      ${item('/metrics', 'Metrics', path.startsWith('/metrics'))}
      ${item('/config', 'Config', path.startsWith('/config'))}
      ${item('/logs', 'Logs', path.startsWith('/logs'))}
    </nav>
    ${keyed && html`<button type="button" class="forget" id="forget-key" onClick=${onForget}>Forget key</button>`}
  </header>`;
}

/** After a navigation (not the first load), focus moves to the new page's heading for screen readers and keyboards. */
function useFocusOnNavigation(path) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return undefined;
    }
    let tries = 0;
    const focus = () => {
      const heading = document.querySelector('main h1');
      if (heading) {
        heading.setAttribute('tabindex', '-1');
        heading.focus();
      } else if (tries++ < 20) setTimeout(focus, 50);
    };
    focus();
    return undefined;
  }, [path]);
}

function App() {
  const path = usePath();
  // 'probing' until the server says whether the key (if any) is good.
  const [state, setState] = useState({ access: 'probing', keyRequired: false, rejected: false });
  useFocusOnNavigation(path);

  const probe = async (rejectedIfLocked) => {
    try {
      const answer = await access();
      setState({ access: answer.authorized ? 'open' : 'locked', keyRequired: answer.keyRequired, rejected: rejectedIfLocked && !answer.authorized });
    } catch {
      setState({ access: 'open', keyRequired: false, rejected: false });
    }
  };
  useEffect(() => {
    probe(apiKey() !== '');
    return onUnauthorized(() => setState((old) => ({ ...old, access: 'locked' })));
  }, []);

  const useKey = (key) => {
    setApiKey(key);
    probe(true);
  };
  const forget = () => {
    setApiKey('');
    probe(false);
  };

  if (state.access === 'probing') return html`<p class="muted">Connecting…</p>`;
  if (state.access === 'locked') return html`<${KeyForm} rejected=${state.rejected} onKey=${useKey} />`;
  return html`<div onClick=${onLinkClick}>
    <a class="skip" href="#main" onClick=${(e) => {
      e.preventDefault();
      e.stopPropagation();
      const main = document.getElementById('main');
      main.setAttribute('tabindex', '-1');
      main.focus();
    }}>Skip to content</a>
    <${Nav} path=${path} keyed=${state.keyRequired && apiKey() !== ''} onForget=${forget} />
    <main id="main"><${Page} path=${path} /></main>
  </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
