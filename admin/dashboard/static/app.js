// The one-page app: the key form when the server wants an API key, else the page for the current path.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { api, apiKey, onUnauthorized, setApiKey } from './api.js';
import { ImpostersPage } from './imposters-page.js';
import { ImposterPage } from './imposter-page.js';
import { ConfigPage, LogsPage } from './system-pages.js';
import { onLinkClick, usePath } from './navigation.js';

function KeyForm({ rejected, onKey }) {
  const [key, setKey] = useState('');
  const submit = (event) => {
    event.preventDefault();
    onKey(key);
  };
  return html`<main class="login">
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
  return html`<${ImpostersPage} />`;
}

function Nav({ path }) {
  const item = (href, label, active) => html`<a href=${href} class=${active ? 'active' : ''}>${label}</a>`;
  return html`<header class="top">
    <a href="/imposters" class="brand">svc</a>
    <nav>
      ${item('/imposters', 'Imposters', path === '/' || path.startsWith('/imposters'))}
      ${item('/config', 'Config', path.startsWith('/config'))}
      ${item('/logs', 'Logs', path.startsWith('/logs'))}
    </nav>
  </header>`;
}

function App() {
  const path = usePath();
  // 'probing' until the server says whether the key (if any) is good.
  const [access, setAccess] = useState('probing');
  const [rejected, setRejected] = useState(false);

  const probe = async () => {
    try {
      await api('GET', '/config');
      setAccess('open');
    } catch (err) {
      setAccess(err.status === 401 ? 'locked' : 'open');
    }
  };
  useEffect(() => {
    probe();
    return onUnauthorized(() => setAccess('locked'));
  }, []);

  const useKey = async (key) => {
    setApiKey(key);
    try {
      await api('GET', '/config');
      setRejected(false);
      setAccess('open');
    } catch (err) {
      setRejected(err.status === 401);
      if (err.status !== 401) setAccess('open');
    }
  };

  if (access === 'probing') return html`<p class="muted">Connecting…</p>`;
  if (access === 'locked') return html`<${KeyForm} rejected=${rejected || apiKey() !== ''} onKey=${useKey} />`;
  return html`<div onClick=${onLinkClick}>
    <${Nav} path=${path} />
    <main><${Page} path=${path} /></main>
  </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
