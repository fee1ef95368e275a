import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.jsx";

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <App url="ws://127.0.0.1:8080/mcp" />
  </StrictMode>,
);
