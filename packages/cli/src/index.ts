export { banner, serviceEntry, up, upOptionsFromEnv, DEMO_CLIENT, DEMO_PASSWORD, DEMO_POOL, REPO_ROOT, type RunningNode, type UpOptions } from './up.js';
export { load, query, token } from './commands.js';
export { backoffDelay, DEFAULT_RESTART_POLICY, LineSplitter, realTimers, stopOnSignals, Supervisor, SupervisorError, tagLine, type RestartPolicy, type ServiceSpec, type SupervisorOptions, type Timers } from './supervisor.js';
