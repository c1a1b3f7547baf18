// "Send a test request": through the admin port's gateway (same origin, SPEC §4.10) with
// `X-Svc-Debug: true`, so the imposter answers its match report instead of the response (SPEC §4.12).
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { describePredicate } from './outcome.js';
import { JsonView } from './widgets.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** `Name: value` lines as a header object; blank or colon-less lines are ignored. */
function parseHeaders(text) {
  const headers = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function Report({ report }) {
  const result = report.matchResult ?? {};
  if (result.matched) {
    const preview = result.responsePreview ?? {};
    return html`<div class="report match">
      <p><strong>matched stub ${result.stubIndex}</strong>${result.stubId && html` <code class="muted">${result.stubId}</code>`}:
        ${' '}${preview.responseType} ${preview.statusCode ?? ''}</p>
      ${preview.bodyPreview ? html`<pre>${preview.bodyPreview}</pre>` : null}
      <${JsonView} summary="debug report" value=${report} />
    </div>`;
  }
  return html`<div class="report miss">
    <p><strong>no stub matched</strong>: ${result.reason}</p>
    <ul>${(result.allStubs ?? []).map((stub) => html`<li>stub ${stub.index}: ${(stub.predicates ?? []).map(describePredicate).join(' · ') || 'catch-all'}</li>`)}</ul>
    <${JsonView} summary="debug report" value=${report} />
  </div>`;
}

export function DebugForm({ port }) {
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('/');
  const [headers, setHeaders] = useState('');
  const [body, setBody] = useState('');
  const [outcome, setOutcome] = useState(undefined);

  const send = async (event) => {
    event.preventDefault();
    const init = { method, headers: { ...parseHeaders(headers), 'X-Svc-Debug': 'true' } };
    if (body !== '' && method !== 'GET' && method !== 'HEAD') init.body = body;
    try {
      const response = await fetch(`/__svc/${port}${path.startsWith('/') ? path : `/${path}`}`, init);
      const text = await response.text();
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      setOutcome(
        response.headers.get('x-svc-debug-response') === 'true' && parsed ? { report: parsed } : { failure: `HTTP ${response.status}: ${text.slice(0, 500)}` },
      );
    } catch (err) {
      setOutcome({ failure: String(err) });
    }
  };

  return html`<section class="panel">
    <h2>Send a test request</h2>
    <form class="debug" onSubmit=${send}>
      <div class="row">
        <select value=${method} onChange=${(e) => setMethod(e.target.value)} aria-label="method">
          ${METHODS.map((m) => html`<option value=${m}>${m}</option>`)}
        </select>
        <input id="debug-path" value=${path} onInput=${(e) => setPath(e.target.value)} aria-label="path and query" />
        <button type="submit">Send</button>
      </div>
      <textarea rows="2" placeholder="Header: value (one per line)" value=${headers} onInput=${(e) => setHeaders(e.target.value)}></textarea>
      <textarea rows="3" placeholder="body" value=${body} onInput=${(e) => setBody(e.target.value)}></textarea>
    </form>
    ${outcome?.report && html`<${Report} report=${outcome.report} />`}
    ${outcome?.failure && html`<p class="error" role="alert">${outcome.failure}</p>`}
  </section>`;
}
