// The fetch the sign-in sends its OAuth requests to the code host with (oauth4webapi's customFetch, CodeHostOAuth's
// fetch): through the same proxy and trusted CAs as every API call (HTTPS_PROXY, NO_PROXY, CODEHOST_CA_FILE), so a
// code host behind a private CA or a proxy signs people in as readily as it answers them. Node's own fetch knows
// neither setting.

type SendFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch for requests to the code host; undici's fetch and the pool are loaded and made by its first request. */
export function codeHostFetch(settings: { caFile?: string }): typeof fetch {
  let made: Promise<SendFetch> | undefined;
  const ready = () =>
    (made ??= (async (): Promise<SendFetch> => {
      const [fetching, { codeHostDispatcher }] = await Promise.all([
        import('undici/lib/web/fetch/index.js'),
        import('./client.js'),
      ]);
      const dispatcher = codeHostDispatcher(settings.caFile);
      return (url, init) => fetching.default.fetch(url, { ...init, dispatcher });
    })().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
  return (async (input: string | URL | Request, init?: RequestInit) => {
    if (input instanceof Request) throw new TypeError('codeHostFetch takes a URL and options, not a Request');
    return (await ready())(input, init);
  }) as typeof fetch;
}
