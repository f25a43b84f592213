import ReMVVMServerCommand
import TodoApp

await ReMVVMServerCommand.main(TodoApp.domain)
