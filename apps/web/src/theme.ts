import { useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';
const KEY = 'binscope.theme';
const systemDark = () => window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;

/** The theme the user picked with the toggle, if any (kept in localStorage). */
function storedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null; // storage can be blocked; then the system decides every time
  }
}

function apply(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}

/** Sets the theme before the first render, so the page never flashes the other one. */
export function applyInitialTheme(): void {
  apply(storedTheme() ?? (systemDark() ? 'dark' : 'light'));
}

/**
 * The page's theme: the user's pick if they made one, else the system's, followed live
 * (prefers-color-scheme) until they pick.
 */
export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setThemeState] = useState<Theme>(() => storedTheme() ?? (systemDark() ? 'dark' : 'light'));
  useEffect(() => {
    const query = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (!query) return;
    const follow = (event: MediaQueryListEvent) => {
      if (storedTheme()) return;
      const next = event.matches ? 'dark' : 'light';
      apply(next);
      setThemeState(next);
    };
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);
  const setTheme = (next: Theme) => {
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // not persisted; still applied to this page
    }
    apply(next);
    setThemeState(next);
  };
  return [theme, setTheme];
}
