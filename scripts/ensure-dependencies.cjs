// Installs the locked dependencies when they are missing or older than package-lock.json, so
// that `npm start` and `npm test` work straight after a clone. Plain CommonJS: it runs on
// whatever Node the machine has, before the project's own Node 24 is installed.
const { execSync } = require('node:child_process');
const { statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const mtime = (file) => {
  try {
    return statSync(join(root, file)).mtimeMs;
  } catch {
    return 0;
  }
};

if (mtime('node_modules/.package-lock.json') < mtime('package-lock.json')) {
  console.error('Installing dependencies (npm ci)...');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}
