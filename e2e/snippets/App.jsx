import { useEffect, useState } from "react";
import { connect } from "mcplive";
import { ToolList } from "./ToolList.jsx";

// One client per mounted App. StrictMode (in development) mounts, unmounts and
// mounts again: the cleanup aborts a connect still in flight and closes a client
// already there, so no client is left behind and a closed one is never shown.
export function App({ url }) {
  const [client, setClient] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const abort = new AbortController();
    let mine = null;
    connect(url, { clientInfo: { name: "my-app", version: "1.0.0" }, signal: abort.signal }).then(
      (c) => (abort.signal.aborted ? c.close() : setClient((mine = c))),
      (err) => abort.signal.aborted || setError(err),
    );
    return () => {
      abort.abort();
      setClient(null);
      setError(null);
      mine?.close();
    };
  }, [url]);
  if (error) return <p role="alert">Cannot connect: {error.message}</p>;
  return client ? <ToolList client={client} /> : <p>Connecting…</p>;
}
