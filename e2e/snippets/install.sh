npm pack ../mcplive/js          # writes mcplive-0.1.0.tgz; refuses without the built wasm
npm install ./mcplive-0.1.0.tgz
