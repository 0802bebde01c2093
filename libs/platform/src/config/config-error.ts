/**
 * A configuration value the service refuses to start with. The message names the variable or the
 * file and JSON path, the rule, and what was found, so an operator can fix it without reading code;
 * `startService` prints it as `config error: <message>` and exits non-zero.
 */
export class ConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

/** Quotes a found value for a message, cut short so a pasted secret or a huge blob never floods a log. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
