import { createApp } from "vue";
import App from "./App.vue";

createApp(App, { url: "ws://127.0.0.1:8080/mcp" }).mount("#root");
