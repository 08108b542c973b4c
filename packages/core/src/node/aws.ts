import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { S3Settings } from '../s3-client.js';

type Ini = Record<string, Record<string, string>>;

/** The AWS shared-file dialect: `[section]`, `key = value`, nested `s3 =` blocks by indent. */
export function parseAwsIni(text: string): Ini {
  const out: Ini = {};
  let section: Record<string, string> | undefined;
  let nested: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s*[#;].*$/, '');
    if (!line.trim()) continue;
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      section = out[header[1].trim()] ??= {};
      nested = undefined;
      continue;
    }
    const pair = /^(\s*)([^=]+?)\s*=\s*(.*?)\s*$/.exec(line);
    if (!pair || !section) continue;
    const indented = pair[1].length > 0;
    if (!indented) nested = pair[3] === '' ? pair[2] : undefined;
    const key = indented && nested ? `${nested}.${pair[2]}` : pair[2];
    if (pair[3] !== '' || !indented) section[key] = pair[3];
  }
  return out;
}

function readIni(file: string): Ini {
  try {
    return parseAwsIni(fs.readFileSync(file, 'utf8'));
  } catch {
    // No shared file is the common case for env-only setups.
    return {};
  }
}

function truthy(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  return /^(1|true|yes|path)$/i.test(value);
}

/**
 * S3 settings from the standard AWS places, in the SDKs' order: environment keys, then the
 * AWS_PROFILE (or default) profile of ~/.aws/credentials and ~/.aws/config. An
 * AWS_ENDPOINT_URL (S3-compatible stores) implies path-style addressing unless
 * AWS_S3_ADDRESSING_STYLE=virtual; AWS_S3_FORCE_PATH_STYLE=true asks for it anywhere.
 */
export function resolveS3Settings(
  env: Record<string, string | undefined> = process.env,
  home: string = os.homedir(),
): S3Settings {
  const profile = env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || 'default';
  const credentials = readIni(env.AWS_SHARED_CREDENTIALS_FILE || path.join(home, '.aws', 'credentials'))[
    profile
  ];
  const configFile = readIni(env.AWS_CONFIG_FILE || path.join(home, '.aws', 'config'));
  const config = configFile[profile === 'default' ? 'default' : `profile ${profile}`] ?? {};
  const fromEnv = Boolean(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY);
  const keys = fromEnv
    ? {
        accessKeyId: env.AWS_ACCESS_KEY_ID,
        secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
        sessionToken: env.AWS_SESSION_TOKEN || undefined,
      }
    : {
        accessKeyId: credentials?.aws_access_key_id ?? config.aws_access_key_id,
        secretAccessKey: credentials?.aws_secret_access_key ?? config.aws_secret_access_key,
        sessionToken: credentials?.aws_session_token ?? config.aws_session_token,
      };
  const endpoint =
    env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || config['s3.endpoint_url'] || config.endpoint_url;
  const style = env.AWS_S3_ADDRESSING_STYLE || config['s3.addressing_style'];
  const forcePathStyle =
    truthy(env.AWS_S3_FORCE_PATH_STYLE) ?? (style ? style === 'path' : undefined) ?? Boolean(endpoint);
  return {
    ...keys,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || config.region || 'us-east-1',
    endpoint: endpoint || undefined,
    forcePathStyle,
  };
}
