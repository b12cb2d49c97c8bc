// A tiny todo list: plain Node, no dependencies, everything in memory.
// Usage: node app/server.js --port 3000   (or PORT=3000 node app/server.js)
import http from 'node:http';
import { URLSearchParams } from 'node:url';
import { renderPage } from './page.js';
import { createTask, listTasks } from './store.js';

const flag = process.argv.indexOf('--port');
const port = Number(flag >= 0 ? process.argv[flag + 1] : (process.env.PORT ?? 3000));

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  try {
    if (req.method === 'GET' && url.pathname === '/') return send(res, 200, 'text/html; charset=utf-8', renderPage(listTasks()));
    if (req.method === 'GET' && url.pathname === '/api/tasks') return send(res, 200, 'application/json', JSON.stringify(listTasks()));
    if (req.method === 'POST' && url.pathname === '/tasks') {
      const fields = Object.fromEntries(new URLSearchParams(await readBody(req)));
      if (!fields.title?.trim()) return send(res, 400, 'text/plain', 'a task needs a title');
      createTask(fields);
      return redirect(res, '/');
    }
    send(res, 404, 'text/plain', 'not found');
  } catch (error) {
    send(res, 500, 'text/plain', String(error));
  }
});

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

function redirect(res, location) {
  res.writeHead(303, { location });
  res.end();
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

server.listen(port, '127.0.0.1', () => console.log(`todo app listening on http://127.0.0.1:${server.address().port}/`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
