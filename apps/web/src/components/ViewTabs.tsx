import type { Tab } from '../hooks/useSession';
import type { SessionInfo } from '../protocol';

/** The tabs a session has: its structure always, its data when a reader opened, conversions when declared. */
export function tabsOf(session: SessionInfo): Array<{ id: Tab; label: string; disabled: boolean }> {
  const tabs: Array<{ id: Tab; label: string; disabled: boolean }> = [
    { id: 'structure', label: 'Structure', disabled: false },
    { id: 'data', label: 'Data', disabled: session.tables.length === 0 && !session.listsTables },
  ];
  const converters = session.converters;
  if (converters.length > 0)
    tabs.push({
      id: 'convert',
      label: converters.length === 1 ? `Convert to ${converters[0].to.toUpperCase()}` : 'Convert',
      disabled: false,
    });
  // Two files compare by what a reader finds in them: only when one reads this file.
  tabs.push({ id: 'compare', label: 'Compare', disabled: !session.canValidate });
  return tabs;
}

/** The tab list (WAI-ARIA tabs: the cursor keys move between the enabled tabs). */
export function ViewTabs({ session, tab, onTab }: { session: SessionInfo; tab: Tab; onTab(tab: Tab): void }) {
  const tabs = tabsOf(session);
  const enabled = tabs.filter((t) => !t.disabled);
  const step = (from: Tab, by: number) => {
    const at = enabled.findIndex((t) => t.id === from);
    const next = enabled[(at + by + enabled.length) % enabled.length];
    onTab(next.id);
    document.getElementById(`tab-${next.id}`)?.focus();
  };
  return (
    <div className="tabs" role="tablist" aria-label="Views">
      {tabs.map((t) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          id={`tab-${t.id}`}
          aria-selected={tab === t.id}
          aria-controls={`panel-${t.id}`}
          tabIndex={tab === t.id ? 0 : -1}
          disabled={t.disabled}
          onClick={() => onTab(t.id)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') step(t.id, 1);
            if (e.key === 'ArrowLeft') step(t.id, -1);
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
