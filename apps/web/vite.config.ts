import { defineConfig } from 'vite';

// React without @vitejs/plugin-react: esbuild (already inside Vite) compiles JSX with the
// automatic runtime. We give up Fast Refresh (dev reloads the page instead); see README.
export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 4096 },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
