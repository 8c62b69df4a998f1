// Types for the undici files src/http/undici-parts.ts imports directly: undici publishes types for its index only.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export default EnvHttpProxyAgent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, (...args: never[]) => unknown>;
  export default api;
}
declare module 'undici/lib/web/fetch/formdata.js' {
  import { FormData } from 'undici';
  const formData: { FormData: typeof FormData };
  export default formData;
}
declare module 'undici/lib/web/fetch/index.js' {
  import type { Dispatcher } from 'undici';
  const fetching: {
    fetch: (url: string | URL, init: Omit<RequestInit, 'dispatcher'> & { dispatcher: Dispatcher }) => Promise<Response>;
  };
  export default fetching;
}
