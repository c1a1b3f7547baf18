// `/config` and `/logs` as pages.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { ErrorText, JsonView, useLoad, useTitle } from './widgets.js';
import { Time } from './time.js';

const LOG_LINES = 500;

function Fields({ value }) {
  return html`<table class="fields"><tbody>
    ${Object.entries(value ?? {}).map(
      ([name, field]) => html`<tr><th>${name}</th>
      <td>${field !== null && typeof field === 'object' ? html`<code>${JSON.stringify(field)}</code>` : html`<code>${String(field)}</code>`}</td></tr>`,
    )}
  </tbody></table>`;
}

export function ConfigPage() {
  const config = useLoad(() => api('GET', '/config').then((r) => r.body), []);
  useTitle('Config');
  const data = config.data;
  return html`<section>
    <h1 tabindex="-1">Config ${data && html`<span class="muted">svc ${data.version}</span>`}</h1>
    <${ErrorText} error=${config.error} />
    ${
      data
      && html`<div class="columns even">
      <section class="panel"><h2>Options</h2><${Fields} value=${data.options} /></section>
      <section class="panel"><h2>Serve options</h2><${Fields} value=${data.serveOptions} /></section>
      <section class="panel"><h2>Process</h2><${Fields} value=${data.process} /></section>
    </div>
    <${JsonView} summary="raw /config" value=${data} />`
    }
  </section>`;
}

export function LogsPage() {
  const logs = useLoad(() => api('GET', '/logs').then((r) => r.body.logs), []);
  useTitle('Logs');
  const [level, setLevel] = useState('');
  const all = logs.data ?? [];
  const shown = all
    .filter((entry) => level === '' || entry.level === level)
    .slice(-LOG_LINES)
    .reverse();
  return html`<section>
    <div class="title-row">
      <h1 tabindex="-1">Logs <span class="muted">${all.length}</span></h1>
      <div class="actions">
        <select value=${level} onChange=${(e) => setLevel(e.target.value)} aria-label="level">
          ${['', 'debug', 'info', 'warn', 'error'].map((l) => html`<option value=${l}>${l || 'all levels'}</option>`)}
        </select>
        <button type="button" onClick=${logs.reload}>Refresh</button>
      </div>
    </div>
    <${ErrorText} error=${logs.error} />
    <ol class="logs">
      ${shown.map((entry) => html`<li class=${`log ${entry.level}`}><${Time} ms=${Date.parse(entry.timestamp)} withDate /> <span class="level">${entry.level}</span> ${entry.message}</li>`)}
    </ol>
  </section>`;
}
