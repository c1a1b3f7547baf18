// "Send a test request": matched by the imposter's debug matching (docs/metrics-and-events.md) through the dashboard's
// explain call, so it runs no response and never enters the journal or numberOfRequests; the report
// names the matched stub, or every candidate closest first with expected and actual values.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { Explanation } from './explain-view.js';
import { ErrorText, JsonView } from './widgets.js';

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

function Report({ report, stubs }) {
  const result = report.matchResult ?? {};
  const preview = result.responsePreview;
  return html`<div class=${`report ${result.matched ? 'match' : 'miss'}`}>
    <${Explanation} result=${result} stubs=${stubs} />
    ${preview && html`<p class="muted">would answer: ${preview.responseType} ${preview.statusCode ?? ''}</p>`}
    ${preview?.bodyPreview ? html`<pre>${preview.bodyPreview}</pre>` : null}
    <${JsonView} summary="debug report" value=${report} />
  </div>`;
}

export function DebugForm({ port, stubs }) {
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('/');
  const [headers, setHeaders] = useState('');
  const [body, setBody] = useState('');
  const [outcome, setOutcome] = useState(undefined);

  const send = async (event) => {
    event.preventDefault();
    const request = { method, url: path.startsWith('/') ? path : `/${path}`, headers: parseHeaders(headers) };
    if (body !== '' && method !== 'GET' && method !== 'HEAD') request.body = body;
    try {
      const answer = await api('POST', `/_dashboard/api/imposters/${port}/explain`, request);
      setOutcome({ report: answer.body });
    } catch (error) {
      setOutcome({ error });
    }
  };

  return html`<section class="panel" aria-labelledby="debug-heading">
    <h2 id="debug-heading">Send a test request</h2>
    <p class="muted small">Matched like a real request; no response runs and nothing is recorded.</p>
    <form class="debug" onSubmit=${send}>
      <div class="row">
        <select value=${method} onChange=${(e) => setMethod(e.target.value)} aria-label="method">
          ${METHODS.map((m) => html`<option value=${m}>${m}</option>`)}
        </select>
        <input id="debug-path" value=${path} onInput=${(e) => setPath(e.target.value)} aria-label="path and query" />
        <button type="submit">Send</button>
      </div>
      <textarea rows="2" aria-label="headers" placeholder="Header: value (one per line)" value=${headers} onInput=${(e) => setHeaders(e.target.value)}></textarea>
      <textarea rows="3" aria-label="body" placeholder="body" value=${body} onInput=${(e) => setBody(e.target.value)}></textarea>
    </form>
    ${outcome?.report && html`<${Report} report=${outcome.report} stubs=${stubs} />`}
    <${ErrorText} error=${outcome?.error} />
  </section>`;
}
