// The page starts the worker (Vite and webpack follow this new URL) and renders what it posts.
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
const calls = new Map();
let lastId = 0;

worker.addEventListener("message", ({ data }) => {
  if (data.kind === "tools") {
    document.querySelector("h2").textContent = `Tools v${data.version} (${data.status})`;
    document.querySelector("ul").replaceChildren(...data.items.map((t) => Object.assign(document.createElement("li"), { textContent: t.name })));
  } else if (data.kind === "error") {
    document.querySelector("h2").textContent = `Cannot connect: ${data.error}`;
  } else if (calls.has(data.id)) {
    calls.get(data.id)(data);
    calls.delete(data.id);
  }
});

export function callTool(name, args) {
  const id = ++lastId;
  return new Promise((resolve, reject) => {
    calls.set(id, ({ result, error }) => (error ? reject(new Error(error)) : resolve(result)));
    worker.postMessage({ id, name, args });
  });
}
