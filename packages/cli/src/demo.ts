/** The demo's identity provider names (its own module: `ianode token` signs in with them without
 * loading what `ianode up` needs). */
export const DEMO_POOL = 'local_ianode01';
export const DEMO_CLIENT = 'ianodedemoclient0000000001';
export const DEMO_PASSWORD = 'Ianode-demo-1';
