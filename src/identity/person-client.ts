// The service client of one signed-in person: every request carries their code-host access token from the vault
// (refreshed there when near expiry, under the replicas' shared lock), never a token the MCP client sent.
import { ApiError } from '../http/errors.js';
import type { ApiRequest, ApiResponse, ApiTransport } from '../http/types.js';
import type { TokenVault } from './token-vault.js';

type Vault = Pick<TokenVault, 'accessToken' | 'afterRejection'>;

function signedOut(req: ApiRequest): ApiError {
  return new ApiError({
    kind: 'http',
    status: 401,
    method: req.method,
    path: req.path,
    serviceMessage: 'your sign-in through the code host has ended; sign in again from your MCP host',
  });
}

export function personTransport(client: ApiTransport, vault: Vault, person: string): ApiTransport {
  return {
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      const token = await vault.accessToken(person);
      if (!token) throw signedOut(req);
      try {
        return await client.request<T>({ ...req, token, tokenScheme: 'bearer' });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
        // Refused before it ran (401), so sending it again is safe: once, with a token the code host gives anew.
        const again = await vault.afterRejection(person, token);
        if (!again || again === token) throw again ? error : signedOut(req);
        return client.request<T>({ ...req, token: again, tokenScheme: 'bearer' });
      }
    },
  };
}
