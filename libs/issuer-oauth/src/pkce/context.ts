export interface PkceVerificationContext {
  readonly codeVerifier: string | undefined;
  /** The S256 challenge stored with the code at PAR. */
  readonly codeChallenge: string;
}

export interface CodeChallengeContext {
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: string | undefined;
}

/** RFC 7636 §4.1: unreserved characters (RFC 3986 §2.3), 43 to 128 of them. */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 §4.2: BASE64URL(SHA-256(verifier)) is 32 bytes, 43 unpadded base64url characters. */
export const S256_CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
