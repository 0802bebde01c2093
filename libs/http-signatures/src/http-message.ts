/** Header fields as received: any name case, one or several field lines per name. */
export type HttpHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A request as the signature base sees it (RFC 9421 §2). `url` is the absolute target URI. */
export interface HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: HttpHeaders;
}

/** A response, only for the `@status` derived component (RFC 9421 §2.2.9). */
export interface HttpResponse {
  readonly status: number;
  readonly headers: HttpHeaders;
}

export type HttpMessage = HttpRequest | HttpResponse;

export function isRequest(message: HttpMessage): message is HttpRequest {
  return 'method' in message;
}

/**
 * The field lines of a header, looked up by case-insensitive name; `undefined` when the field is absent.
 */
export function fieldLines(headers: HttpHeaders, name: string): readonly string[] | undefined {
  const wanted = name.toLowerCase();
  const lines: string[] = [];
  let found = false;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    found = true;
    if (typeof value === 'string') lines.push(value);
    else lines.push(...value);
  }
  return found && lines.length > 0 ? lines : undefined;
}
