export { banner, up, upOptionsFromEnv, DEMO_CLIENT, DEMO_PASSWORD, DEMO_POOL, REPO_ROOT, type RunningNode, type UpOptions } from './up.js';
export { load, query, token } from './commands.js';
