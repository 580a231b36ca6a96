// Browser script of the web console page (served as /server-console/assets/console.js by
// src/http/pages/server-console.ts), on xterm.js (the global `Terminal` of xterm.js's build, served
// beside it). The ticket arrives in the URL's fragment, which no server sees: it is dropped from
// the address bar at once and sent as the socket's first message, never in a URL.
// biome-ignore lint/suspicious/noRedundantUseStrict: served as a classic <script>, not a module, so the directive is what makes it strict
'use strict';
(() => {
  const ticket = new URLSearchParams(location.hash.slice(1)).get('ticket') ?? '';
  history.replaceState(null, '', location.pathname);

  // The page's CSP admits <style> elements only with this response's nonce; xterm.js creates its
  // own without one (it has no nonce option), so every <style> made on this page gets it.
  const nonce = document.querySelector('meta[property="csp-nonce"]').content;
  const createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (...args) {
    const element = createElement.apply(this, args);
    if (String(args[0]).toLowerCase() === 'style') element.nonce = nonce;
    return element;
  };

  const state = document.getElementById('console-state');
  const say = (text) => {
    state.textContent = text;
  };
  if (!ticket) {
    say('This page opens with a console link from the server page. Open a new one there.');
    return;
  }

  const term = new Terminal({
    cursorBlink: true,
    convertEol: false,
    fontFamily: 'ui-monospace, Menlo, Consolas, monospace',
    fontSize: 14,
    rows: 24,
    // A live region and a readable copy of the screen for screen readers.
    screenReaderMode: true,
    theme: { background: '#172033', foreground: '#e6edf7' },
  });
  const screen = document.getElementById('console-screen');
  term.open(screen);
  // The width of one character cell, measured once in the terminal's font.
  const probe = document.createElement('span');
  Object.assign(probe.style, { position: 'absolute', visibility: 'hidden', whiteSpace: 'pre' });
  probe.style.font = `${term.options.fontSize}px ${term.options.fontFamily}`;
  probe.textContent = 'W'.repeat(50);
  document.body.append(probe);
  const cell = probe.getBoundingClientRect().width / 50 || 8.4;
  probe.remove();
  /** As many columns as the screen's width holds (at least 20): the console never scrolls sideways. */
  const fitColumns = () => {
    const cols = Math.max(20, Math.floor((screen.clientWidth - 16) / cell));
    if (cols !== term.cols) term.resize(cols, term.rows);
  };
  fitColumns();
  addEventListener('resize', fitColumns);

  const socket = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/server-console/socket`,
  );
  socket.addEventListener('open', () => {
    socket.send(JSON.stringify({ ticket }));
    say('Connected to the serial console.');
    term.focus();
  });
  socket.addEventListener('message', (e) => term.write(String(e.data)));
  socket.addEventListener('close', (e) => {
    say(
      e.code === 4401
        ? 'This console link was used already or has expired, or the server is not running. Open a new one from the server page.'
        : `Disconnected${e.reason ? `: ${e.reason}` : ''}. Open a new console from the server page.`,
    );
    term.options.disableStdin = true;
  });
  term.onData((data) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(data);
  });
})();
