import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';
import { loadConfigFile } from './config-file.js';
import { integer, object } from './schema.js';

const schema = object({ ttl: integer(1, 60) }, { unknownKeys: 'warn' });
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'config-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(text: string): { configFile: string; configFilePath: string; configFileIsDefault: boolean } {
  const path = join(dir, 'service.json');
  writeFileSync(path, text);
  return { configFile: 'config/service.json', configFilePath: path, configFileIsDefault: false };
}

function messageOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfigFile', () => {
  it('parses, validates and reports unknown top-level keys as warnings', () => {
    const result = loadConfigFile(fileWith('\ufeff{"ttl": 30, "tll": 5}'), schema);
    expect(result.value).toEqual({ ttl: 30 });
    expect(result.warnings).toEqual(['config/service.json tll: unknown key, ignored']);
  });

  it('explains a missing default file and how to get one', () => {
    const message = messageOf(() => loadConfigFile({ configFile: 'config/issuer.json', configFilePath: join(dir, 'nope.json'), configFileIsDefault: true }, schema));
    expect(message).toContain('CONFIG_FILE is not set and the default config/issuer.json does not exist');
    expect(message).toContain('generate-demo-config.mjs');
  });

  it('names a missing configured file', () => {
    const message = messageOf(() => loadConfigFile({ configFile: '/etc/x.json', configFilePath: join(dir, 'x.json'), configFileIsDefault: false }, schema));
    expect(message).toBe(`CONFIG_FILE /etc/x.json does not exist (looked at ${join(dir, 'x.json')})`);
  });

  it('gives the line and column of a JSON syntax error', () => {
    const message = messageOf(() => loadConfigFile(fileWith('{\n  "ttl": 30\n  "x": 1\n}'), schema));
    expect(message).toBe("config/service.json is not valid JSON: Expected ',' or '}' after property value (line 3, column 3)");
  });

  it('prefixes schema violations with the file name', () => {
    expect(messageOf(() => loadConfigFile(fileWith('{"ttl": 0}'), schema))).toBe('config/service.json ttl: must be an integer 1..60, got 0');
  });

  it('refuses a directory', () => {
    expect(messageOf(() => loadConfigFile({ configFile: 'dir', configFilePath: dir, configFileIsDefault: false }, schema))).toBe('CONFIG_FILE dir is a directory, not a JSON file');
  });
});
