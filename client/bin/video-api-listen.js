#!/usr/bin/env node
// The command is compiled into dist/ (npm run build); this file is there before the build, so that
// npm links it as the package's bin even where it installs the package before building it.
import '../dist/cli/listen.js';
