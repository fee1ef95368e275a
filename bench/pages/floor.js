// connectFloor connects the floor client (../floor/main.go), shared by the
// browser page (floor.html) and the Node row (../node.mjs). dial is
// mcplive's js/src/dial.js, so that the floor dials early as mcplive does;
// instantiate(importObject) instantiates floor.wasm (globalThis.Go, from
// wasm_exec.js, must be loaded). Go carries each page's text; JS parses it
// and hands the app the list once the walk's last page has come.
export async function connectFloor(url, app, dial, instantiate) {
  const early = dial.earlyDial(url);
  const go = new globalThis.Go();
  go.run(await instantiate(go.importObject));
  let items = [];
  const token = dial.beforeDial(early); // Go dials within floorConnect's call
  const connected = globalThis.floorConnect(url, (text) => {
    const { result } = JSON.parse(text);
    items = items.concat(result.tools);
    if (result.nextCursor) return result.nextCursor;
    app.setList(items);
    items = [];
    return "";
  });
  dial.afterDial(token);
  const init = await connected;
  return { close: () => globalThis.floorClose(), version: JSON.parse(init).result.protocolVersion };
}
