import {
  type AnyFormatPlugin,
  definePlugin,
  type FormatInfo,
  type FormatReader,
  node,
  type PluginDefinition,
} from '../src/index.js';

/** A FormatInfo of the current contract with one signature at byte 0. */
export function info(id: string, magic: string, extra: Partial<FormatInfo> = {}): FormatInfo {
  return {
    specificationVersion: 2,
    id,
    title: id.toUpperCase(),
    kind: 'file',
    extensions: [id],
    magic: [{ offset: 0, bytes: magic }],
    ...extra,
  };
}

/** A plugin that reads nothing: for registry tests, where only its metadata and identity matter. */
export function stubPlugin(
  format: FormatInfo,
  extra: Partial<PluginDefinition<undefined, FormatReader>> = {},
): AnyFormatPlugin {
  return definePlugin<undefined, FormatReader, FormatInfo['kind']>({
    ...format,
    parse: async () => undefined,
    reader: () => ({ format: format.id, schema: { fields: [] }, warnings: [] }),
    tree: () => node(format.id, 'file', 0, 0),
    info: async () => ({ format: format.id, title: format.title, counts: {}, properties: [] }),
    inspect: async () => node(format.id, 'file', 0, 0),
    records: async function* () {},
    contentFields: async () => [],
    locateRecord: async () => [],
    ...extra,
  });
}
