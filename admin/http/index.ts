/** The admin plane's HTTP toolkit, shared by admin/ and its route rooms: router, request helpers, replies and error envelopes, client errors, h2c, and the settings routes report. */
export { answerClientErrorsWithEnvelope } from './client-errors.js';
export { acceptH2c } from './h2c.js';
export { sendJson, sendError, reply, rawErrorResponse, type ErrorReplyOptions } from './replies.js';
export { flag, jsonBody, objectBody, portParam, renderOptions, negotiated } from './request-helpers.js';
export { Router, type AdminRequest, type AdminReply, type FoundRoute, type RouteHandler } from './router.js';
export type { AdminSettings } from './settings.js';
