// What forgeops's authorization server needs of the code host sign-in (src/identity/code-host-oauth.ts) and the
// token vault (src/identity/token-vault.ts), in their own terms, so its pieces can be tested with the real ones.
export interface CodeHostTokensLike {
  accessToken: string;
  refreshToken?: string;
  expiresAt: number;
  scopes: string[];
}

export interface CodeHostAccountLike {
  id: number;
  username: string;
  name?: string;
}

/** forgeops as an OAuth client of the code host: one application serves every MCP client. */
export interface CodeHostSignIn {
  authorizationRequest(): Promise<{ url: URL; state: string; codeVerifier: string }>;
  /** The browser came back: the code traded for a pair, and who signed in. */
  signIn(
    callbackUrl: URL,
    expected: { state: string; codeVerifier: string },
  ): Promise<{ tokens: CodeHostTokensLike; account: CodeHostAccountLike }>;
}

/** The code host's tokens of each person, encrypted at rest and refreshed under a lock shared by the replicas. */
export interface PersonVault {
  save(person: string, tokens: CodeHostTokensLike, account: CodeHostAccountLike): Promise<void>;
  /** A fresh code-host access token; undefined when the grant is gone (the person signs in again). */
  accessToken(person: string): Promise<string | undefined>;
  account(person: string): Promise<CodeHostAccountLike | undefined>;
  signOut(person: string): Promise<unknown>;
}
