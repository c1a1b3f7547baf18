// One imposter: header and actions, warnings, stubs, live recorded requests with their match outcome,
// a debug-mode test request, scenarios, spaces and flow state.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { api } from './api.js';
import { describePredicate, outcomeSentences } from './outcome.js';
import { useRequestTail } from './request-tail.js';
import { navigate } from './navigation.js';
import { ErrorText, JsonView, useLoad } from './widgets.js';
import { DebugForm } from './debug-form.js';
import { FlowStatePanel, ScenariosPanel, SpacesPanel } from './flow-panels.js';

const PAGE_SIZE = 100;

function responseKind(response) {
  return ['is', 'proxy', 'inject', 'fault'].find((kind) => kind in response) ?? (response._svc?.script ? '_svc.script' : 'is');
}

function Stub({ stub, index }) {
  const predicates = stub.predicates ?? [];
  const responses = stub.responses ?? [];
  return html`<details class="stub" data-stub=${index}>
    <summary>
      <strong>stub ${index}</strong>
      ${stub.id && html` <code class="muted">${stub.id}</code>`}
      ${' '}${predicates.length === 0 ? 'catch-all' : predicates.map(describePredicate).join(' · ')}
      <span class="muted"> → ${responses.map(responseKind).join(', ')}</span>
      ${stub.space && html` <span class="badge">space ${stub.space}</span>`}
      ${stub.scenarioName && html` <span class="badge">scenario ${stub.scenarioName}</span>`}
    </summary>
    <${JsonView} summary="predicates" value=${predicates} open />
    <${JsonView} summary="responses" value=${responses} open />
  </details>`;
}

function Warnings({ warnings }) {
  if (!warnings?.length) return null;
  return html`<section class="panel">
    <h2>Warnings <span class="warn">${warnings.length}</span></h2>
    <ul class="warnings">
      ${warnings.map((w) => html`<li><code>${w.warningType}</code> ${w.message}</li>`)}
    </ul>
  </section>`;
}

function RecordedRequest({ request, stubs }) {
  const lines = outcomeSentences(request.matchOutcome, stubs);
  const [headline, ...tried] = lines;
  const query = request.query && Object.keys(request.query).length > 0 ? `?${new URLSearchParams(request.query)}` : '';
  return html`<li class=${`request ${headline.kind}`}>
    <div class="request-line">
      <span class="time">${request.timestamp?.slice(11, 23)}</span>
      <strong>${request.method}</strong> <code>${request.path}${query}</code>
      ${request.status !== undefined && html` <span class="muted">${request.status} · ${request.latencyMs} ms</span>`}
      <span class="outcome">${headline.text}</span>
    </div>
    ${tried.length > 0 && html`<ul class="tried">${tried.map((line) => html`<li>${line.text}</li>`)}</ul>`}
    <${JsonView} summary="request" value=${request} />
  </li>`;
}

function Requests({ tail, stubs, recording }) {
  const [shown, setShown] = useState(PAGE_SIZE);
  const { entries, status } = tail;
  const newest = [];
  for (let i = entries.length - 1; i >= 0 && newest.length < shown; i -= 1) newest.push(entries[i]);
  return html`<section class="panel">
    <div class="title-row">
      <h2>Recorded requests <span class="muted" id="request-count">${entries.length}</span></h2>
      <span class=${`live ${status}`} id="tail-status">${status}</span>
    </div>
    ${!recording && html`<p class="muted">recordRequests is off for this imposter: nothing is recorded.</p>`}
    <ol class="requests" id="requests">
      ${newest.map((entry) => html`<${RecordedRequest} key=${entry.seq} request=${entry.request} stubs=${stubs} />`)}
    </ol>
    ${entries.length > shown && html`<button onClick=${() => setShown(shown + PAGE_SIZE)}>Show ${Math.min(PAGE_SIZE, entries.length - shown)} more</button>`}
  </section>`;
}

export function ImposterPage({ port }) {
  const detail = useLoad(() => api('GET', `/_dashboard/api/imposters/${port}`).then((r) => r.body), [port]);
  const [gone, setGone] = useState(false);
  const [actionError, setActionError] = useState(undefined);
  const tail = useRequestTail(port, (event) => {
    if (event.action === 'deleted' || event.action === 'allDeleted') setGone(true);
    else detail.reload();
  });
  const act = async (method, path, after) => {
    try {
      await api(method, path);
      setActionError(undefined);
      after();
    } catch (err) {
      setActionError(err);
    }
  };

  const imposter = detail.data;
  if (!imposter) return html`<section><h1>Imposter ${port}</h1><${ErrorText} error=${detail.error} /></section>`;
  const stubs = imposter.stubs ?? [];
  return html`<section>
    <div class="title-row">
      <h1>Imposter ${port} <span class="badge">${imposter.protocol}</span> ${imposter.name && html`<span class="muted">${imposter.name}</span>`}
        ${' '}<span class=${imposter.enabled ? 'badge on' : 'badge off'}>${imposter.enabled ? 'enabled' : 'disabled'}</span></h1>
      <div class="actions">
        ${
          imposter.enabled
            ? html`<button onClick=${() => act('POST', `/imposters/${port}/disable`, detail.reload)}>Disable</button>`
            : html`<button onClick=${() => act('POST', `/imposters/${port}/enable`, detail.reload)}>Enable</button>`
        }
        <button class="danger" onClick=${() => confirm(`Delete imposter ${port}?`) && act('DELETE', `/imposters/${port}`, () => navigate('/imposters'))}>Delete</button>
      </div>
    </div>
    ${gone && html`<p class="error" role="alert">This imposter has been deleted.</p>`}
    <${ErrorText} error=${actionError ?? detail.error} />
    <${Warnings} warnings=${imposter._svc?.warnings} />
    <div class="columns">
      <div>
        <${Requests} tail=${tail} stubs=${stubs} recording=${imposter.recordRequests} />
      </div>
      <div>
        <section class="panel">
          <h2>Stubs <span class="muted">${stubs.length}</span></h2>
          ${stubs.map((stub, index) => html`<${Stub} key=${stub.id ?? index} stub=${stub} index=${index} />`)}
        </section>
        <${DebugForm} port=${port} />
        <${ScenariosPanel} port=${port} stubs=${stubs} />
        <${SpacesPanel} port=${port} stubs=${stubs} />
        <${FlowStatePanel} port=${port} stubs=${stubs} />
      </div>
    </div>
  </section>`;
}
