import { mount } from "svelte";
import App from "./App.svelte";

mount(App, { target: document.getElementById("root"), props: { url: "ws://127.0.0.1:8080/mcp" } });
