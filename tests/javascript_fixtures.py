"""The JavaScript family's shared test inputs and readers: a small Electron app's sources, trees written from
dicts, the real npm tree the fixtures install, and the calls and graph readers the JavaScript tests share."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import psutil
import pytest
from returns.result import Success

from effects.calls import Connection, call_tool
from rea.catalog import CATALOG
from rea.javascript.ids import node_id as jid
from scripted import CTX
from support import npm_fixture

HERE = Path(__file__).parent / "fixtures" / "javascript"


APP = {
    "package.json": json.dumps(
        {"name": "demo-app", "version": "1.0.0", "main": "src/main.js", "dependencies": {"electron": "^30.0.0"}}
    ),
    "src/main.js": """const { app, BrowserWindow, ipcMain, utilityProcess } = require('electron');
const path = require('node:path');
const fs = require('fs');
const store = require('./store');
const missing = require('./not-here');
function createWindow() {
  const win = new BrowserWindow({ webPreferences: { preload: path.join(__dirname, 'preload.js'), sandbox: false } });
  win.loadFile('src/renderer/index.html');
  ipcMain.handle('settings:get', async (_e, key) => store.get(key));
  ipcMain.on('log', (_e, msg) => console.log(msg));
  ipcMain.handle(dynamicName(), () => 1);
  setInterval(() => win.webContents.send('tick', Date.now()), 1000);
  utilityProcess.fork(path.join(__dirname, 'worker.js'));
  fetch('https://api.example.com/v1/status');
}
app.whenReady().then(createWindow);
""",
    "src/store.js": "const data = {};\nmodule.exports = { get(key) { return data[key]; }, set(key, v) { data[key] = v; } };\n",
    "src/worker.js": "process.parentPort.on('message', () => {});\n",
    "src/preload.js": """const { contextBridge, ipcRenderer } = require('electron');
contextBridge.exposeInMainWorld('api', {
  getSetting: (key) => ipcRenderer.invoke('settings:get', key),
  log: (msg) => ipcRenderer.send('log', msg),
  onTick: (cb) => ipcRenderer.on('tick', (_e, t) => cb(t)),
});
""",
    "src/renderer/index.html": '<!doctype html><html><body><script type="module" src="./app.js"></script></body></html>\n',
    "src/renderer/app.js": """import { format } from './format.js';
window.api.onTick((t) => { document.title = format(t).text; });
window.api.getSetting('theme').then(console.log);
""",
    "src/renderer/format.ts": "export function format(t: number) { return { text: String(t), ts: t }; }\nexport const VERSION: string = '1';\n",
    "src/server.js": "const router = require('express').Router();\nrouter.get('/users/:id', (req, res) => res.end());\nmodule.exports = router;\n",
    "src/broken.js": "this is not { valid javascript (((\n",
    "lib.js/index.js": "module.exports = 1;\n",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def call(conn: Connection, name: str, args: dict[str, Any]) -> Any:
    async def main():
        return await call_tool(conn, name, args, None)

    return anyio.run(main)


_SESSIONS: dict[str, Connection] = {}  # the connection each analysis ran in (its semantic graph is retained there)


def analyze(path: Path, conn: Connection | None = None, **args: Any) -> dict[str, Any]:
    conn = conn or Connection(ctx=CTX)
    reply = call(conn, "analyze_javascript_application", {"input_path": str(path), **args})
    assert isinstance(reply, Success), reply
    _SESSIONS[reply.unwrap()["evidence_id"]] = conn
    return reply.unwrap()


def semantic_graph(evidence: dict[str, Any]) -> dict[str, Any]:
    """The semantic graph an analysis retained as its own Evidence (the record names it by id)."""
    retained = evidence["normalized_result"]["semantic_graph"]["retained"]
    found = _SESSIONS[evidence["evidence_id"]].session.evidence[retained["evidence_id"]]
    assert found.operation == "javascript_semantic_graph"
    return found.to_json()["normalized_result"]


def wire(key: str) -> str:
    """A node's wire id from its readable key (a wire id stays as it is)."""
    return key if key.startswith("jag_node_") else jid(key)


def node(result: dict[str, Any], key: str) -> dict[str, Any]:
    return next(n for n in result["graph"]["nodes"] if n["node_id"] == wire(key))


def label(result: dict[str, Any], node_id: str) -> str:
    """The readable key of the node with this wire id."""
    return node(result, node_id)["label"]


def labels(result: dict[str, Any]) -> dict[str, str]:
    """Wire id -> readable key, for every node of the graph."""
    return {n["node_id"]: n["label"] for n in result["graph"]["nodes"]}


def edges(result, relation=None, source=None, target=None):
    return [
        e
        for e in result["graph"]["edges"]
        if (relation is None or e["relation"] == relation)
        and (source is None or e["source_node_id"] == wire(source))
        and (target is None or e["target_node_id"] == wire(target))
    ]


def keyed(result, relation=None, source=None, target=None):
    """edges() with their ends as readable keys, the names the tests give them."""
    key = labels(result)
    return [
        {**e, "source_node_id": key[e["source_node_id"]], "target_node_id": key[e["target_node_id"]]}
        for e in edges(result, relation, source, target)
    ]


def roles(result, node_id):
    return [r["role"] for r in node(result, node_id).get("roles", [])]


def npm_installed(directory: Path) -> Path:
    """A fixture directory's pinned npm packages, installed by scripts/setup test (the run needs no registry)."""
    return npm_fixture(directory)


@pytest.fixture(scope="module")
def npm_tree() -> Path:
    return npm_installed(HERE)


class Node:
    """A Node with its inspector on a loopback port REA did not start (the test owns and kills it)."""

    def __init__(self, root: Path, script: str, name: str = "app.js") -> None:
        (root / "lib").mkdir(parents=True, exist_ok=True)
        # a live function keeps the module's script alive in V8, so an attach replays it whenever it happens
        (root / "lib" / "a.js").write_text("exports.name = 'a';\nexports.get = () => exports.name;\n")
        # late.js also exports a live function: under load the attach can come after the late require,
        # and a module whose functions were all collected is not replayed to a late debugger
        (root / "lib" / "late.js").write_text("console.warn('late loaded');\nexports.ping = () => 'late';\n")
        (root / name).write_text(script)
        self.cache = root / "cache.json"
        self.process = subprocess.Popen(
            ["node", "--inspect=127.0.0.1:0", str(root / name), str(self.cache)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        line = self.process.stderr.readline()
        found = re.search(r"Debugger listening on ws://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        self.endpoint = f"http://127.0.0.1:{found.group(1)}"
        with urllib.request.urlopen(self.endpoint + "/json/list") as reply:
            self.targets = json.load(reply)
        self.target_id = self.targets[0]["id"]

    def kill_once_attached(self, settle_s: float = 0.3) -> None:
        """Kill the process a moment after a debugger attached (Node says so on stderr): a kill on a timer
        could come before a loaded host's REA had connected, and test the refusal instead of the exit."""
        for line in self.process.stderr:
            if "Debugger attached" in line:
                time.sleep(settle_s)
                break
        self.kill()

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)
        self.process.stderr.close()

    def close(self) -> None:
        self.kill()
        assert not psutil.pid_exists(self.process.pid) or psutil.Process(self.process.pid).status() == "zombie"


def assert_fits(tool: str, evidence: dict) -> None:
    errors = sorted(validator(tool).iter_errors(evidence), key=lambda e: list(e.absolute_path))
    assert not errors, [(list(e.absolute_path)[:6], e.message[:200]) for e in errors[:5]]


ELECTRON = {
    "package.json": json.dumps(
        {"name": "saver", "version": "1.0.0", "main": "main.js", "dependencies": {"electron": "^30.0.0"}}
    ),
    "main.js": """const { app, BrowserWindow, ipcMain, dialog } = require('electron');
const fs = require('fs');
ipcMain.on('save-file', async (event, request) => {
  const target = await dialog.showSaveDialog({ defaultPath: request.name });
  fs.writeFileSync(target.filePath, request.contents);
});
function channelFor(kind) { return 'status:' + kind; }
app.whenReady().then(() => {
  const win = new BrowserWindow({ webPreferences: { preload: __dirname + '/preload.js' } });
  win.webContents.send(channelFor('ready'), { ok: true });
});
""",
    "preload.js": """const { contextBridge, ipcRenderer } = require('electron');
contextBridge.exposeInMainWorld('files', {
  save: (name, text) => {
    const request = { name: name, contents: text, mode: 'overwrite' };
    ipcRenderer.send('save-file', request);
  },
  onStatus: (cb) => ipcRenderer.on('status:ready', (_e, s) => cb(s)),
});
""",
    "app.js": "document.querySelector('#save').onclick = () => window.files.save('notes.txt', 'hello');\n",
    "index.html": '<script src="app.js"></script>\n',
}


SOURCES = {
    "package.json": json.dumps({"name": "shop", "private": True}),
    "src/main.js": "const cart = require('./cart.js');\nconsole.log(cart.total([1, 2]));\n"
    "import('./lazy.js').then((m) => m.run());\n",
    "src/cart.js": "const tax = require('./tax.js');\nmodule.exports = { total: (xs) => tax.apply(xs.reduce((a, b) => a + b, 0)) };\n",
    "src/tax.js": "exports.apply = (x) => Math.round(x * 1.2);\n",
    "src/lazy.js": "export function run() { return fetch('https://api.example.com/lazy'); }\nexport const LAZY = 1;\n",
}


def validator(tool: str) -> jsonschema.Draft202012Validator:
    contract = next(c for c in CATALOG if c.name == tool)
    return jsonschema.Draft202012Validator(contract.output_schema)


IMPORTS_APP = {
    "package.json": json.dumps(
        {
            "name": "imports-app",
            "type": "module",
            "imports": {
                "#config": "./src/config.js",
                "#utils/*": "./src/utils/*.js",
                "#utils/special/*": "./src/special/*.js",
                "#env": {"require": "./src/env.cjs", "import": "./src/env.mjs"},
                "#dep": "dep-pkg",
                "#fp": {"browser": "./src/browser.js", "node": "dep-pkg/fp", "default": "./src/nofp.js"},
                "#fs": "fs",
                "#scheme": "node:fs",
                "#ts/*": "./src/ts/*.js",
                "#gone": "./src/gone.js",
                "#nopkg": "absent-pkg",
                "#up": "../outside.js",
            },
        }
    ),
    "src/index.js": "import c from '#config';\nimport u from '#utils/strings';\nimport s from '#utils/special/deep';\n"
    "import e from '#env';\nimport d from '#dep';\nimport fp from '#fp';\nimport fs from '#fs';\n"
    "import sc from '#scheme';\nimport t from '#ts/thing';\nimport g from '#gone';\nimport n from '#nopkg';\nimport x from '#nothing';\n"
    "import up from '#up';\nimport bad from '#';\n",
    "src/cjs.cjs": "const e = require('#env');\n",
    "src/config.js": "export default 1;\n",
    "src/utils/strings.js": "export default 1;\n",
    "src/special/deep.js": "export default 1;\n",
    "src/env.cjs": "module.exports = 1;\n",
    "src/env.mjs": "export default 1;\n",
    "src/ts/thing.ts": "export default 1;\n",
    "src/browser.js": "export default 1;\n",
    "node_modules/dep-pkg/package.json": json.dumps(
        {"name": "dep-pkg", "exports": {".": "./index.js", "./fp": "./fp.js"}, "imports": {"#own": "./lib/own.js"}}
    ),
    "node_modules/dep-pkg/index.js": "import own from '#own';\nimport c from '#config';\nexport default own;\n",
    "node_modules/dep-pkg/fp.js": "export default 1;\n",
    "node_modules/dep-pkg/lib/own.js": "export default 1;\n",
    "packages/sub/package.json": json.dumps({"name": "sub"}),
    "packages/sub/a.js": "import c from '#config';\n",
}
