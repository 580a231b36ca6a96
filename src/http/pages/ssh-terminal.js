// Browser script of the browser-SSH terminal page (served as /ssh-terminal/terminal.js by src/http/pages/ssh-terminal.ts).
// The token arrives in the URL's fragment, which no server sees; it is moved to this tab's
// sessionStorage and the fragment dropped from the address bar, so a reload still works and the
// address shown (or shared by mistake) no longer carries it.
// biome-ignore lint/suspicious/noRedundantUseStrict: served as a classic <script>, not a module, so the directive is what makes it strict
'use strict';
(() => {
  const sessionId = location.pathname.split('/').pop();
  const storageKey = `ssh-terminal:${sessionId}`;
  const fromUrl = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromUrl) {
    sessionStorage.setItem(storageKey, fromUrl);
    history.replaceState(null, '', location.pathname);
  }
  const token = sessionStorage.getItem(storageKey) ?? '';

  const state = document.getElementById('terminal-state');
  const screen = document.getElementById('terminal-screen');
  const form = document.getElementById('terminal-form');
  const input = document.getElementById('terminal-line');
  const run = document.getElementById('terminal-run');
  let cwd = '/';
  let user = '';

  function print(text) {
    screen.append(document.createTextNode(`${text}\n`));
    screen.scrollTop = screen.scrollHeight;
  }

  async function call(what, body) {
    const res = await fetch(`/ssh-terminal/${encodeURIComponent(sessionId)}/${what}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Terminal-Token': token },
      body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.message ?? `HTTP ${res.status}`);
    return data;
  }

  function closed(message) {
    state.textContent = message;
    input.disabled = true;
    run.disabled = true;
    sessionStorage.removeItem(storageKey);
  }

  const prompt = () => `${user}:${cwd}$`;

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const line = input.value;
    input.value = '';
    print(`${prompt()} ${line}`);
    if (line.trim() === 'clear') {
      screen.textContent = '';
      return;
    }
    run.disabled = true;
    try {
      const result = await call('line', { line, cwd });
      cwd = result.cwd;
      if (result.output) print(result.output);
      if (result.exit) return closed('Session ended. Launch a new one from the console.');
      state.textContent = `Connected as ${user}, in ${cwd}.`;
      run.disabled = false;
      input.focus();
    } catch (err) {
      closed(err.message);
    }
  });

  call('hello', {}).then(
    (hello) => {
      user = hello.user;
      cwd = hello.cwd;
      state.textContent = `Connected as ${user}, in ${cwd}.`;
      print('Simulated shell on your hosting account. Type help for the commands.');
      input.disabled = false;
      run.disabled = false;
      input.focus();
    },
    (err) => closed(err.message),
  );
})();
