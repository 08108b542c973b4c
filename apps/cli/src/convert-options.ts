import type { ConverterInfo, OptionSpec, OptionValues } from '@binscope/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError, EXIT } from './errors.js';

/** `dataDtype` → `data-dtype`: a declared option's flag. */
export function flagName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replace(/_/g, '-');
}

/** `data-dtype` → `dataDtype`: the key commander gives a flag's value (the declared name). */
function optionKey(name: string): string {
  return flagName(name).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A declared option's value as commander parsed it. */
export function optionValue(parsed: Record<string, unknown>, name: string): unknown {
  return parsed[optionKey(name)];
}

function number(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n))
      throw new InvalidArgumentError(`--${flag} takes a number, got ${JSON.stringify(value)}`);
    return n;
  };
}

/** Every option the converters declare, by name, with the conversions that declare it. */
function declared(
  converters: readonly ConverterInfo[],
): Map<string, { spec: OptionSpec; by: ConverterInfo[] }> {
  const out = new Map<string, { spec: OptionSpec; by: ConverterInfo[] }>();
  for (const converter of converters)
    for (const spec of converter.options ?? []) {
      const seen = out.get(spec.name);
      if (seen) seen.by.push(converter);
      else out.set(spec.name, { spec, by: [converter] });
    }
  return out;
}

/** Names already taken by the verb itself (--json, --force, -o …): a declaration cannot shadow them. */
const RESERVED = new Set(['json', 'debug', 'force', 'output', 'to', 'from', 'as', 'plugin', 'help']);

/**
 * The values a flag several converters declare may take: every declaration's choices (`--images`
 * is raw|bytes for records → MLDF, struct|png for an export), each converter checking its own;
 * none when one declaration takes any value.
 */
function allChoices(name: string, converters: readonly ConverterInfo[]): readonly string[] | undefined {
  const out = new Set<string>();
  for (const converter of converters)
    for (const spec of converter.options ?? []) {
      if (spec.name !== name) continue;
      if (!spec.choices) return undefined;
      for (const choice of spec.choices) out.add(choice);
    }
  return out.size ? [...out] : undefined;
}

/** "CSV → SCBF, X → Y: what it does", one such part per distinct description of the flag. */
function helpText(name: string, converters: readonly ConverterInfo[]): string {
  const byText = new Map<string, string[]>();
  for (const converter of converters)
    for (const spec of converter.options ?? [])
      if (spec.name === name)
        byText.set(spec.description, [...(byText.get(spec.description) ?? []), converter.title]);
  return [...byText].map(([text, titles]) => `${titles.join(', ')}: ${text}`).join('; ');
}

/**
 * Adds each declared option as a flag, its help made from the declaration ("CSV → SCBF:
 * column types …"). A name several converters declare is one flag; each of them reads it.
 */
export function addConverterOptions(cmd: Command, converters: readonly ConverterInfo[]): void {
  for (const [name, { spec: first, by }] of declared(converters)) {
    if (RESERVED.has(name)) continue;
    const spec = { ...first, choices: allChoices(name, by) };
    const flag = flagName(name);
    const choices = spec.choices ? ` (${spec.choices.join(', ')})` : '';
    const text = `${helpText(name, by)}${spec.type === 'string' && !spec.choices ? '' : choices}`;
    const value =
      spec.valueName ?? (spec.choices ? spec.choices.join('|') : spec.type === 'number' ? 'n' : 'value');
    const option =
      spec.type === 'boolean' ? new Option(`--${flag}`, text) : new Option(`--${flag} <${value}>`, text);
    if (spec.type === 'number') option.argParser(number(flag));
    if (spec.choices && spec.type === 'string') option.choices([...spec.choices]);
    cmd.addOption(option);
  }
}

/**
 * The values of the options `converter` declares, from what commander parsed; an option set
 * that only other conversions declare is a usage error (it would be silently ignored).
 */
export function converterValues(
  converter: ConverterInfo,
  all: readonly ConverterInfo[],
  parsed: Record<string, unknown>,
): OptionValues {
  const mine = new Set((converter.options ?? []).map((o) => o.name));
  for (const [name, { by }] of declared(all)) {
    if (mine.has(name) || RESERVED.has(name) || parsed[optionKey(name)] === undefined) continue;
    throw new CliError(
      `--${flagName(name)} is not an option of ${converter.title} (it is for ${by.map((c) => c.title).join(', ')})`,
      EXIT.usage,
    );
  }
  const values: Record<string, string | number | boolean | undefined> = {};
  for (const spec of converter.options ?? []) {
    const value = parsed[optionKey(spec.name)];
    if (value === undefined) continue;
    // The flag takes every declarer's choices: this converter's own are checked here.
    if (spec.choices && !spec.choices.includes(String(value)))
      throw new CliError(
        `--${flagName(spec.name)} ${value}: ${converter.title} takes ${spec.choices.join(', ')}`,
        EXIT.usage,
      );
    values[spec.name] = value as string | number | boolean;
  }
  return values;
}
