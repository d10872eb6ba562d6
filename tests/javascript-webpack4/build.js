// Builds ./src/main.js of the directory given as argv[2] into argv[3] with webpack 4 (production; argv[4] "map"
// adds a source map). The tests call it with NODE_OPTIONS=--openssl-legacy-provider (webpack 4 hashes with md4).
const path = require('path');
const webpack = require('webpack');
const [context, output, map] = process.argv.slice(2);
webpack({ mode: 'production', context: path.resolve(context), entry: './src/main.js',
  devtool: map === 'map' ? 'source-map' : false, output: { path: path.resolve(output), filename: 'main.js' } },
  (err, stats) => {
    if (err || stats.hasErrors()) { console.error(err || stats.toString()); process.exit(1); }
  });
