/** `/intercept*` (docs/intercept.md): thin adapters over `InterceptControl`, gated per authorization action. */
import { errors } from '../../engine/model/index.js';
import { interceptAccess, interceptErrors, type InterceptAction, type InterceptControl, type TruststoreFormat } from '../intercept/index.js';
import { jsonBody, type AdminRequest, type Router, type AdminSettings } from '../http/index.js';

const TRUSTSTORES: Record<string, { format: TruststoreFormat; contentType: string }> = {
  'truststore.p12': { format: 'pkcs12', contentType: 'application/x-pkcs12' },
  'truststore.jks': { format: 'jks', contentType: 'application/octet-stream' },
};

function authenticated(request: AdminRequest, apiKey: string | undefined): boolean {
  return apiKey !== undefined && (request.headers.authorization === apiKey || request.headers['x-api-key'] === apiKey);
}

/** `allowInjection` is the admin plane's `--allowInjection`: inject rules posted here are gated by it. */
export function interceptRoutes(router: Router, control: InterceptControl, settings: AdminSettings, allowInjection: () => boolean): void {
  function authorize(request: AdminRequest, action: InterceptAction): void {
    const decision = interceptAccess({
      action,
      remoteAddress: request.raw.socket.remoteAddress,
      requireAdminAuth: settings.requireAdminAuth,
      authenticated: authenticated(request, settings.apiKey),
    });
    if (decision === 'forbidden') throw interceptErrors.forbidden();
  }

  router.on('POST', '/intercept', async (request) => {
    authorize(request, 'intercept.write');
    return { status: 201, body: await control.start(jsonBody(request), { allowInjection: allowInjection() }) };
  });
  router.on('GET', '/intercept', (request) => {
    authorize(request, 'intercept.read');
    return { status: 200, body: control.status() };
  });
  router.on('DELETE', '/intercept', async (request) => {
    authorize(request, 'intercept.write');
    await control.stop();
    return { status: 204 };
  });

  router.on('POST', '/intercept/rules', (request) => {
    authorize(request, 'intercept.write');
    return { status: 201, body: control.addRules(jsonBody(request), { allowInjection: allowInjection() }) };
  });
  router.on('GET', '/intercept/rules', (request) => {
    authorize(request, 'intercept.read');
    return { status: 200, body: control.listRules() };
  });
  router.on('DELETE', '/intercept/rules', (request) => {
    authorize(request, 'intercept.write');
    return { status: 200, body: control.clearRules() };
  });

  router.on('GET', '/intercept/ca.pem', (request) => {
    authorize(request, 'intercept.read');
    return { status: 200, headers: { 'Content-Type': 'application/x-pem-file' }, text: control.caPem() };
  });
  router.on('GET', '/intercept/:file', async (request, response) => {
    authorize(request, 'intercept.read');
    const store = TRUSTSTORES[request.params.file];
    if (!store) throw errors.notFoundRoute(`GET ${request.path}`);
    const bytes = await control.exportTruststore(store.format, request.query.get('password') ?? undefined);
    response.writeHead(200, {
      'Content-Type': store.contentType,
      'Content-Length': bytes.length,
      'Content-Disposition': `attachment; filename="${request.params.file}"`,
    });
    response.end(bytes);
  });
}
