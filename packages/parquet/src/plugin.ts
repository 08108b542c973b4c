export const parquetPlugin = undefined as never;
