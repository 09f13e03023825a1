import { render } from "preact";
import "./style.css";
import { App } from "./ui/app.js";

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
