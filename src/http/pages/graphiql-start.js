// Browser script of the GraphiQL page (served as /docs/assets/graphiql-start.js by src/http/pages/docs.ts).
// It starts yoga's GraphiQL build with a fetcher of its own: queries and mutations are POSTed to
// /graphql with the headers editor's headers; subscriptions run over graphql-ws on the same path,
// the Authorization header travelling as connectionParams.authorization (a browser cannot set
// headers on a WebSocket, and yoga's own fetcher would connect without them).
// biome-ignore lint/suspicious/noRedundantUseStrict: served as a classic <script>, not a module, so the directive is what makes it strict
'use strict';
(() => {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  var wsUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + config.endpoint;

  // The page's CSP admits <style> elements only with this response's nonce. Monaco creates its
  // theme's <style> without one (it has no nonce option): every <style> this page's own scripts
  // create gets the nonce, as styled-components does from the same <meta>.
  var nonce = document.querySelector('meta[property="csp-nonce"]').content;
  var createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (...args) {
    var element = createElement.apply(this, args);
    if (String(args[0]).toLowerCase() === 'style') element.nonce = nonce;
    return element;
  };

  // Monaco's workers, from this server.
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: (_moduleId, label) => {
      return config.workers[label];
    },
  };

  /** The headers editor's headers; the placeholder Authorization is not a credential and is left out. */
  function headersOf(opts) {
    var headers = Object.assign({}, opts?.headers);
    Object.keys(headers).forEach((name) => {
      if (name.toLowerCase() === 'authorization' && headers[name] === config.placeholder) delete headers[name];
    });
    return headers;
  }

  function authorizationOf(headers) {
    var name = Object.keys(headers).find((n) => {
      return n.toLowerCase() === 'authorization';
    });
    return name ? headers[name] : undefined;
  }

  /** The operations of a document, `{type, name}` each, read from its text by a small scanner. */
  function operationsOf(query) {
    var text = String(query || '')
      .replace(/"""[\s\S]*?"""/g, '""')
      .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
      .replace(/#[^\n\r]*/g, '');
    var tokens = text.match(/[{}()]|[_A-Za-z][_0-9A-Za-z]*/g) || [];
    var braces = 0;
    var parens = 0;
    var pending = null;
    var named = false;
    var found = [];
    tokens.forEach((token) => {
      if (token === '(') parens++;
      else if (token === ')') parens--;
      else if (parens > 0) return;
      else if (token === '{') {
        if (braces === 0 && pending !== 'fragment')
          found.push({ type: pending || 'query', name: pending ? named || null : null });
        if (braces === 0) {
          pending = null;
          named = false;
        }
        braces++;
      } else if (token === '}') braces--;
      else if (braces === 0 && !pending && /^(query|mutation|subscription|fragment)$/.test(token)) pending = token;
      else if (braces === 0 && pending && named === false) named = token;
    });
    return found;
  }

  async function overHttp(params, headers) {
    var response = await fetch(config.endpoint, {
      method: 'POST',
      headers: Object.assign({}, headers, {
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json, application/json',
      }),
      body: JSON.stringify(params),
    });
    return response.json();
  }

  async function* overWebSocket(params, headers) {
    var authorization = authorizationOf(headers);
    var client = graphqlWs.createClient({
      url: wsUrl,
      connectionParams: authorization ? { authorization: authorization } : {},
      lazy: true,
      retryAttempts: 0,
    });
    try {
      for await (var result of client.iterate(params)) yield result;
    } catch (err) {
      // The server closes an unauthenticated connection with 4401 and a reason.
      const message = err?.reason ? `The connection closed (${err.code}): ${err.reason}` : String(err?.message || err);
      yield { errors: [{ message: message }] };
    } finally {
      await client.dispose();
    }
  }

  function fetcher(params, opts) {
    var headers = headersOf(opts);
    // GraphiQL's facts about the document (operation name, parsed document) can lag behind the
    // editor by a keystroke: the text sent decides which operation runs and over what.
    var operations = operationsOf(params.query);
    var name = operations.some((op) => {
      return op.name === params.operationName;
    })
      ? params.operationName
      : undefined;
    var chosen = operations.find((op) => {
      return !name || op.name === name;
    });
    var request = { query: params.query, variables: params.variables, operationName: name };
    return chosen && chosen.type === 'subscription' ? overWebSocket(request, headers) : overHttp(request, headers);
  }

  YogaGraphiQL.renderYogaGraphiQL(
    document.getElementById('root'),
    Object.assign({}, config.graphiql, { fetcher: fetcher }),
  );
})();
