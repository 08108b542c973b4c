import type { OptionSpec } from '@binscope/core';

type OptionValue = string | number | boolean | undefined;

/**
 * One option a converter declares, as the control its type asks for: a checkbox for a
 * boolean, a list for a string with choices, a number or text box otherwise. The option's
 * name is its label; its description says what it does.
 */
export function OptionField({
  spec,
  value,
  onChange,
  idPrefix,
}: {
  spec: OptionSpec;
  value: OptionValue;
  onChange(value: OptionValue): void;
  idPrefix: string;
}) {
  const id = `${idPrefix}-${spec.name}`;
  const hint = (
    <span className="muted option-hint" id={`${id}-hint`}>
      {spec.description}
    </span>
  );
  if (spec.type === 'boolean')
    return (
      <div className="option">
        <label>
          <input
            type="checkbox"
            checked={value === true}
            aria-describedby={`${id}-hint`}
            data-option={spec.name}
            onChange={(e) => onChange(e.target.checked || undefined)}
          />{' '}
          {spec.name}
        </label>{' '}
        {hint}
      </div>
    );
  const control = spec.choices ? (
    <select
      id={id}
      value={value === undefined ? '' : String(value)}
      aria-describedby={`${id}-hint`}
      data-option={spec.name}
      onChange={(e) => onChange(e.target.value || undefined)}
    >
      <option value="">(default)</option>
      {spec.choices.map((c) => (
        <option key={c} value={c}>
          {c}
        </option>
      ))}
    </select>
  ) : (
    <input
      id={id}
      type={spec.type === 'number' ? 'number' : 'text'}
      value={value === undefined ? '' : String(value)}
      placeholder={spec.valueName}
      aria-describedby={`${id}-hint`}
      data-option={spec.name}
      onChange={(e) => {
        const text = e.target.value;
        onChange(text === '' ? undefined : spec.type === 'number' ? Number(text) : text);
      }}
    />
  );
  return (
    <div className="option">
      <label htmlFor={id}>{spec.name}</label> {control} {hint}
    </div>
  );
}
