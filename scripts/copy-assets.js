// Copies non-TypeScript assets the apps read at run time into the compiled build.
const { cpSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
cpSync(join(root, 'apps/hub/src/web/dashboard.html'), join(root, 'dist/apps/hub/src/web/dashboard.html'));
