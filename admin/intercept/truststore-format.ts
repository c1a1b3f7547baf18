/** What a truststore export may be asked for; apart from truststore.ts so naming them loads no node-forge. */
export type TruststoreFormat = 'pkcs12' | 'jks';
export const DEFAULT_TRUSTSTORE_PASSWORD = 'changeit';
/** Java lowercases aliases; keytool shows this name. */
export const TRUSTSTORE_ALIAS = 'svc-intercept-ca';
