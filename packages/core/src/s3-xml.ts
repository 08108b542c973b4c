/**
 * S3's XML, read and written without an XML parser: its replies are flat enough for a tag
 * scan, and the one body binscope sends (CompleteMultipartUpload) is a list of two fields.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    if (entity[0] !== '#') return ENTITIES[entity.toLowerCase()] ?? '';
    const codePoint =
      entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : '';
  });
}

export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`,
  );
}

/** The text of the first `<tag>…</tag>`, entities decoded. */
export function xmlText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return match ? decodeXml(match[1]) : undefined;
}

/** The raw inner XML of every `<tag>…</tag>`. */
export function xmlAll(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]);
}

/** The one line S3 puts in an error body: `NoSuchKey: The specified key does not exist.` */
export function describeS3Error(xml: string): string | undefined {
  const code = xmlText(xml, 'Code');
  if (!code) return undefined;
  const message = xmlText(xml, 'Message');
  return message ? `${code}: ${message}` : code;
}
