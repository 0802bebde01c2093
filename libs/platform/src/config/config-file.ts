import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import { validateJson, type Schema, type ValidatedJson } from './schema.js';
import type { ServiceSettings } from './service-settings.js';

const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

/** Reads CONFIG_FILE, parses it as JSON and validates it; every failure is a ConfigError naming the file. */
export function loadConfigFile<T>(
  settings: Pick<ServiceSettings, 'configFile' | 'configFilePath' | 'configFileIsDefault'>,
  schema: Schema<T>,
): ValidatedJson<T> {
  const text = readConfigText(settings);
  return validateJson(schema, parseJson(text, settings.configFile), settings.configFile);
}

function readConfigText(settings: Pick<ServiceSettings, 'configFile' | 'configFilePath' | 'configFileIsDefault'>): string {
  const { configFile, configFilePath } = settings;
  try {
    const size = statSync(configFilePath).size;
    if (size > MAX_CONFIG_FILE_BYTES) throw new ConfigError(`CONFIG_FILE ${configFile} is ${size} bytes; the limit is ${MAX_CONFIG_FILE_BYTES}`);
    return readFileSync(configFilePath, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new ConfigError(
        settings.configFileIsDefault
          ? `CONFIG_FILE is not set and the default ${configFile} does not exist (looked at ${configFilePath}); ` +
              'run the service from the repository root, set CONFIG_FILE, or regenerate the demo files with `node tools/scripts/generate-demo-config.mjs`'
          : `CONFIG_FILE ${configFile} does not exist (looked at ${configFilePath})`,
        { cause: error },
      );
    }
    if (code === 'EISDIR') throw new ConfigError(`CONFIG_FILE ${configFile} is a directory, not a JSON file`, { cause: error });
    throw new ConfigError(`CONFIG_FILE ${configFile} cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

function parseJson(text: string, source: string): unknown {
  const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(withoutBom);
  } catch (error) {
    throw new ConfigError(`${source} is not valid JSON: ${describeJsonError(error as Error, withoutBom)}`, { cause: error });
  }
}

/** JSON.parse reports a character offset; an operator editing the file wants a line and column. */
function describeJsonError(error: Error, text: string): string {
  const message = error.message
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/after JSON at position \d+.*$/s, 'after the JSON value');
  const position = /at position (\d+)/.exec(error.message)?.[1];
  if (position === undefined) return message;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}
