import ExampleApp
import ReMVVMServerCommand

// The example domain through the one entry point every domain uses (`serve` by default).
await ReMVVMServerCommand.main(ExampleApp.domain)
